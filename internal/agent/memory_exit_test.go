package agent

import (
	"regexp"
	"testing"
)

// exitCodeRE is what failedExit replaced: its first match is the oracle.
var exitCodeRE = regexp.MustCompile(`\n\[exit code ([1-9][0-9]*),`)

func checkFailedExit(t *testing.T, content string) {
	t.Helper()
	want, wantOK := "", false
	if m := exitCodeRE.FindStringSubmatch(content); m != nil {
		want, wantOK = m[1], true
	}
	if got, ok := failedExit(content); got != want || ok != wantOK {
		t.Errorf("failedExit(%q) = %q, %v; the expression finds %q, %v", content, got, ok, want, wantOK)
	}
}

func TestFailedExit(t *testing.T) {
	for _, c := range []string{
		"", "(no output)\n\n[exit code 0, 0s]", "boom\n\n[exit code 2, 1.3s]", "x\n[exit code 127,",
		"\n[exit code 0, 0s]\n[exit code 3, 1s]", "\n[exit code 01, 0s]", "\n[exit code 1 0s]", "\n[exit code ,",
		"\n[exit code 12", "[exit code 4, 0s]", "\n[exit code \n[exit code 5,", "\n[exit code 99999999999999999999,",
		"\n[exit code 1\n[exit code 2,",
	} {
		checkFailedExit(t, c)
	}
}

func FuzzFailedExit(f *testing.F) {
	for _, s := range []string{"out\n\n[exit code 1, 0s]", "\n[exit code 0,\n[exit code 7,", "\n[exit code 12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFailedExit(t, s) })
}
