package web

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitDiff(t *testing.T) {
	diff := "--- a/notes.txt\n+++ b/notes.txt\n@@ -3,5 +3,4 @@\n c\n-d\n-e\n+D\n f\n-g\n+G\n+G2\n"
	want := []splitRow{
		{Header: "@@ -3,5 +3,4 @@"},
		{OldNo: "3", NewNo: "3", Old: "c", New: "c", OldClass: "ctx", NewClass: "ctx"},
		{OldNo: "4", NewNo: "4", Old: "d", New: "D", OldClass: "del", NewClass: "add"},
		{OldNo: "5", Old: "e", OldClass: "del", NewClass: "none"},
		{OldNo: "6", NewNo: "5", Old: "f", New: "f", OldClass: "ctx", NewClass: "ctx"},
		{OldNo: "7", NewNo: "6", Old: "g", New: "G", OldClass: "del", NewClass: "add"},
		{NewNo: "7", New: "G2", OldClass: "none", NewClass: "add"},
	}
	if diff := cmp.Diff(want, splitDiff(diff)); diff != "" {
		t.Errorf("split (-want +got):\n%s", diff)
	}
	// A bad header does not break the layout.
	if rows := splitDiff("@@ nonsense\n+x\n"); len(rows) != 2 || rows[1].NewNo != "1" || rows[1].New != "x" {
		t.Errorf("bad header: %+v", rows)
	}
}
