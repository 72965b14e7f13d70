package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadArtifactLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tenLines := write("ten", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n")
	noFinalNewline := write("nonl", "a\nb")
	long := write("long", strings.Repeat("é", 100000)+"\nshort\n")
	empty := write("empty", "")
	cases := []struct {
		name       string
		path       string
		start, end int
		max        int
		want       []string
		total      int
		err        string
	}{
		{"first page", tenLines, 0, 3, 0, []string{"l1", "l2", "l3"}, 10, ""},
		{"middle", tenLines, 4, 6, 0, []string{"l5", "l6"}, 10, ""},
		{"past the end", tenLines, 8, 100, 0, []string{"l9", "l10"}, 10, ""},
		{"empty range", tenLines, 5, 5, 0, nil, 10, ""},
		{"start beyond", tenLines, 50, 60, 0, nil, 10, ""},
		{"last line without newline", noFinalNewline, 1, 2, 0, []string{"b"}, 2, ""},
		{"long line capped on a rune boundary", long, 0, 2, 5, []string{"éé", "short"}, 2, ""},
		{"long line whole", long, 0, 1, 0, []string{strings.Repeat("é", 100000)}, 2, ""},
		{"empty file", empty, 0, 10, 0, nil, 0, ""},
		{"bad range", tenLines, 3, 1, 0, nil, 0, "start <= end"},
		{"negative start", tenLines, -1, 1, 0, nil, 0, "start <= end"},
		{"missing file", filepath.Join(dir, "nope"), 0, 1, 0, nil, 0, "open output artifact"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, total, err := ReadArtifactLines(tc.path, tc.start, tc.end, tc.max)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) || total != tc.total {
				t.Errorf("got %d lines %.60q total %d, want %.60q total %d", len(got), got, total, tc.want, tc.total)
			}
		})
	}
}

// TestSpill: output that fits the view stays in memory and leaves no file;
// output that does not is written whole.
func TestSpill(t *testing.T) {
	dir := t.TempDir()
	small := newCapture(1<<20, DefaultLimits(), dir, "s-*.log", nil)
	_, _ = small.Write([]byte("one\ntwo\n"))
	if text, art, err := small.finish(); text != "one\ntwo" || art != "" || err != nil {
		t.Errorf("small: %q %q %v", text, art, err)
	}
	big := newCapture(1<<20, Limits{Head: 1, Tail: 1, MaxLineBytes: 10}, dir, "b-*.log", nil)
	_, _ = big.Write([]byte("one\ntwo\nthree\n"))
	text, art, err := big.finish()
	if err != nil || art == "" || !strings.Contains(text, art) {
		t.Fatalf("big: %q %q %v", text, art, err)
	}
	if b, _ := os.ReadFile(art); string(b) != "one\ntwo\nthree\n" {
		t.Errorf("artifact = %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the artifact directory, want 1", len(entries))
	}
}
