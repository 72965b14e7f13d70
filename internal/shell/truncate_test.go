package shell

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func numbered(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = strconv.Itoa(i + 1)
	}
	return lines
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		name     string
		lines    []string
		lim      Limits
		artifact string
		want     string
	}{
		{"empty", nil, Limits{}, "", ""},
		{"fits", numbered(3), Limits{}, "", "1\n2\n3"},
		{"exactly head+tail", numbered(100), Limits{}, "", strings.Join(numbered(100), "\n")},
		{"one over", numbered(101), Limits{Head: 2, Tail: 2, MaxLineBytes: 100}, "/a.log",
			"1\n2\n[… 97 lines truncated (lines 3–99 of 101); full output: /a.log — read it with read_file offsets]\n100\n101"},
		{"no artifact", numbered(10), Limits{Head: 1, Tail: 1, MaxLineBytes: 100}, "",
			"1\n[… 8 lines truncated (lines 2–9 of 10)]\n10"},
		{"tail only", numbered(5), Limits{Head: 0, Tail: 2, MaxLineBytes: 100}, "",
			"[… 3 lines truncated (lines 1–3 of 5)]\n4\n5"},
		{"head only", numbered(5), Limits{Head: 2, Tail: 0, MaxLineBytes: 100}, "",
			"1\n2\n[… 3 lines truncated (lines 3–5 of 5)]"},
		{"long line cut", []string{strings.Repeat("x", 30), "short"}, Limits{Head: 5, Tail: 5, MaxLineBytes: 10}, "/a.log",
			"xxxxxxxxxx [… 20 more bytes]\nshort\n[1 long lines were cut; full output: /a.log]"},
		{"cut on a rune boundary", []string{"ééééé"}, Limits{Head: 1, Tail: 1, MaxLineBytes: 5}, "",
			"éé [… 6 more bytes]"},
		{"negative limits mean defaults", numbered(3), Limits{Head: -1, Tail: -1, MaxLineBytes: -1}, "", "1\n2\n3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Truncate(tc.lines, tc.lim, tc.artifact); got != tc.want {
				t.Errorf("Truncate = %q\nwant       %q", got, tc.want)
			}
		})
	}
}

// TestTruncateGolden fixes the model's view of a long build log with the
// default 15+85 limits.
func TestTruncateGolden(t *testing.T) {
	var lines []string
	for i := 1; i <= 1000; i++ {
		lines = append(lines, fmt.Sprintf("[%04d] compiling module_%d.go", i, i))
	}
	lines[3] = strings.Repeat("very long line ", 200)
	lines[999] = "FAIL: 1 test failed"
	checkGolden(t, "testdata/truncate/build-log.golden", Truncate(lines, DefaultLimits(), "/artifacts/shell-s-1-out.log"))
}

// TestKeeperStreamMatchesTruncate: feeding the same lines as a stream in
// arbitrary pieces, including the path that skips lines in bulk, gives the
// same view as Truncate.
func TestKeeperStreamMatchesTruncate(t *testing.T) {
	lim := Limits{Head: 3, Tail: 4, MaxLineBytes: 8}
	for _, n := range []int{0, 1, 6, 7, 8, 50, 1000} {
		for _, piece := range []int{1, 3, 7, 64, 1 << 20} {
			t.Run(fmt.Sprintf("%d lines in %d-byte pieces", n, piece), func(t *testing.T) {
				lines := numbered(n)
				for i := range lines {
					lines[i] = strings.Repeat(lines[i], i%4+1)
				}
				text := strings.Join(lines, "\n")
				if n > 0 {
					text += "\n"
				}
				k := newKeeper(lim)
				for i := 0; i < len(text); i += piece {
					k.write([]byte(text[i:min(i+piece, len(text))]))
				}
				got, want := k.render("/x"), Truncate(lines, lim, "/x")
				if k.total != n {
					t.Errorf("total = %d, want %d", k.total, n)
				}
				// Lines skipped in bulk are not counted as cut, so only the
				// cut-lines note may differ, and only when lines were
				// omitted (the note then never shows).
				if got != want {
					t.Errorf("stream view:\n%s\nTruncate:\n%s", got, want)
				}
			})
		}
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("a\nb\nc", uint8(1), uint8(1), uint8(10))
	f.Add(strings.Repeat("line\n", 300), uint8(15), uint8(85), uint8(200))
	f.Add("ééé\n\n\xff", uint8(0), uint8(2), uint8(3))
	f.Fuzz(func(t *testing.T, text string, head, tail, maxLine uint8) {
		lines := strings.Split(text, "\n")
		lim := Limits{Head: int(head), Tail: int(tail), MaxLineBytes: int(maxLine)}
		got := Truncate(lines, lim, "/a")
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("valid input gave invalid output %q", got)
		}
		eff := lim.orDefault()
		out := strings.Split(got, "\n")
		if len(lines) > eff.Head+eff.Tail {
			if len(out) > eff.Head+eff.Tail+1 {
				t.Fatalf("%d lines out for limits %+v", len(out), eff)
			}
			if !strings.Contains(got, fmt.Sprintf("[… %d lines truncated", len(lines)-eff.Head-eff.Tail)) {
				t.Fatalf("no marker in %q", got)
			}
		}
		// Every kept line starts with the start of its input line.
		for i := 0; i < min(eff.Head, len(lines), len(out)); i++ {
			kept, _, _ := strings.Cut(out[i], " [… ")
			if !strings.HasPrefix(lines[i], kept) {
				t.Fatalf("line %d: %q is not a prefix of %q", i, kept, lines[i])
			}
		}
	})
}
