package shell

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestSanitize(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain", "hello\nworld\n", "hello\nworld\n"},
		{"no final newline", "a\nb", "a\nb"},
		{"empty lines", "\n\n", "\n\n"},
		{"SGR colours", "\x1b[1;31mred\x1b[0m \x1b[38;5;208mor\x1b[39m\n", "red or\n"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"progress redraws", "10%\r20%\r100%\n", "100%\n"},
		{"shorter redraw keeps the tail", "abcdef\rXY\n", "XYcdef\n"},
		{"redraw with erase to end", "abcdef\r\x1b[KXY\n", "XY\n"},
		{"erase whole line then write", "abcdef\x1b[2K\rnew\n", "new\n"},
		{"erase whole line without CR", "abc\x1b[2Kd\n", "   d\n"},
		{"erase to start", "abcdef\x1b[3D\x1b[1Kx\n", "   xef\n"},
		{"erase to start at end", "abc\x1b[1Kx\n", "   x\n"},
		{"trailing CR", "done\r\n", "done\n"},
		{"CR at end of output", "50%\r", "50%"},
		{"backspace", "abd\bc\n", "abc\n"},
		{"man-page bold", "b\bbo\bol\bld\bd\n", "bold\n"},
		{"backspace at start", "\b\bx\n", "x\n"},
		{"cursor back and overwrite", "hello\x1b[2Dxy\n", "helxy\n"},
		{"cursor forward pads", "a\x1b[3Cb\n", "a   b\n"},
		{"cursor forward at end only", "a\x1b[3C\n", "a\n"},
		{"column absolute", "abcdef\x1b[3Gx\n", "abxdef\n"},
		{"huge cursor move is bounded", "a\x1b[999999999Cb\n", "a" + strings.Repeat(" ", maxCursorMove) + "b\n"},
		{"OSC title with BEL", "\x1b]0;title\x07text\n", "text\n"},
		{"OSC with ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
		{"VS Code 633 marks", "\x1b]633;A\x07$ \x1b]633;B\x07ls\x1b]633;C\x07\nfile\n\x1b]633;D;0\x07", "$ ls\nfile\n"},
		{"unterminated OSC ends at newline", "\x1b]0;never ends\nnext\n", "\nnext\n"},
		{"DCS string", "\x1bPq#0;2;0;0;0\x1b\\after\n", "after\n"},
		{"APC string", "\x1b_Gf=100;AAAA\x1b\\img\n", "img\n"},
		{"charset designation", "\x1b(Babc\x1b)0\n", "abc\n"},
		{"keypad mode and save cursor", "\x1b=\x1b7x\x1b8\x1b>\n", "x\n"},
		{"private CSI", "\x1b[?25l\x1b[?1049hx\x1b[?25h\n", "x\n"},
		{"CSI with intermediate", "\x1b[0 qx\n", "x\n"},
		{"ESC ESC", "\x1b\x1b[31mx\n", "x\n"},
		{"CSI interrupted by newline", "a\x1b[3\nb\n", "a\nb\n"},
		{"lone ESC at end", "x\x1b", "x"},
		{"bell and other controls", "a\x07b\x00c\x01d\x7fe\n", "abcde\n"},
		{"tab kept", "a\tb\n", "a\tb\n"},
		{"UTF-8 kept", "héllo ✓ 𝄞\n", "héllo ✓ 𝄞\n"},
		{"invalid byte", "a\xffb\n", "a\uFFFDb\n"},
		{"truncated sequence", "a\xe2\x82b\n", "a\uFFFDb\n"},
		{"sequence cut by ESC", "a\xe2\x1b[31mb\n", "a\uFFFDb\n"},
		{"overlong encoding", "\xc0\xaf\n", "\uFFFD\uFFFD\n"},
		{"surrogate", "\xed\xa0\x80\n", "\uFFFD\uFFFD\uFFFD\n"},
		{"incomplete at end", "x\xf0\x9f", "x\uFFFD"},
		{"C1 control as UTF-8", "a\u009bb\u0085c\n", "abc\n"},
		{"overwrite wide with narrow", "é\rx\n", "x\n"},
		{"overwrite narrow with wide", "ab\ré\n", "éb\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize([]byte(tc.in)); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSanitizeLines(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\n", []string{"a", ""}},
		{"\x1b[31m\x1b[0m", nil},
	}
	for _, tc := range cases {
		got := SanitizeLines([]byte(tc.in))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("SanitizeLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// sanitizeChunked feeds in to a Sanitizer split at the given points.
func sanitizeChunked(in []byte, lineMax int, cuts ...int) string {
	var out bytes.Buffer
	s := NewSanitizer(func(p []byte) { out.Write(p) })
	if lineMax > 0 {
		s.lineMax = lineMax
	}
	prev := 0
	for _, c := range cuts {
		c = min(max(c, prev), len(in))
		_, _ = s.Write(in[prev:c])
		prev = c
	}
	_, _ = s.Write(in[prev:])
	s.Close()
	return out.String()
}

// TestSanitizeChunking: the output does not depend on how the input was
// split, including splits inside escape sequences and UTF-8 sequences.
func TestSanitizeChunking(t *testing.T) {
	in := []byte("\x1b[1;32mok\x1b[0m é✓\r\x1b[2Kprogress 100%\nnext\x1b]633;A\x07 line\xe2\x82\n\x1b(Bz\x1bP..\x1b\\\ttab\n")
	want := sanitizeChunked(in, 0)
	for i := 0; i <= len(in); i++ {
		if got := sanitizeChunked(in, 0, i); got != want {
			t.Fatalf("split at %d: %q, want %q", i, got, want)
		}
	}
	// Byte at a time.
	cuts := make([]int, len(in))
	for i := range cuts {
		cuts[i] = i
	}
	if got := sanitizeChunked(in, 0, cuts...); got != want {
		t.Fatalf("byte at a time: %q, want %q", got, want)
	}
}

// TestSanitizeLongLine: a line longer than the buffer passes through in
// pieces without being lost and without unbounded memory.
func TestSanitizeLongLine(t *testing.T) {
	in := strings.Repeat("x", 10*maxLineBuffer) + "\nend\n"
	var pieces, maxPiece int
	var out strings.Builder
	s := NewSanitizer(func(p []byte) {
		pieces++
		maxPiece = max(maxPiece, len(p))
		out.Write(p)
	})
	for i := 0; i < len(in); i += 4096 {
		_, _ = s.Write([]byte(in[i:min(i+4096, len(in))]))
	}
	s.Close()
	if out.String() != in {
		t.Fatal("long line changed")
	}
	if maxPiece > maxLineBuffer+1 || pieces < 10 {
		t.Errorf("%d pieces, largest %d bytes", pieces, maxPiece)
	}
	if c := cap(s.line); c > 2*maxLineBuffer {
		t.Errorf("line buffer grew to %d bytes", c)
	}
}

// TestSanitizeGolden runs recorded terminal sessions through the
// Sanitizer: testdata/ansi/NAME.input → NAME.golden.
func TestSanitizeGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/ansi/*.input")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := Sanitize(raw)
			checkGolden(t, strings.TrimSuffix(in, ".input")+".golden", got)
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// checkClean asserts the properties every sanitized text has.
func checkClean(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8: %q", out)
	}
	for _, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("control character %U in %q", r, out)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, seed := range []string{
		"plain\n",
		"\x1b[1;31mred\x1b[0m\n",
		"10%\r20%\r\x1b[2K30%\n",
		"\x1b]633;A\x07x\x1b]0;t\x1b\\",
		"a\xe2\x82\xffb\bc\x1b[5D\x1b[3Cd",
		"\x1bP\x1b\x1b[",
	} {
		f.Add([]byte(seed), uint16(3), uint16(40))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut1, lineMax uint16) {
		// A small line buffer exercises the over-long-line path too.
		lm := int(lineMax%200) + utf8.UTFMax + 1
		whole := sanitizeChunked(in, lm)
		checkClean(t, whole)
		if strings.ContainsRune(whole, 0x1b) {
			t.Fatalf("ESC in output %q", whole)
		}
		split := sanitizeChunked(in, lm, int(cut1)%(len(in)+1))
		if split != whole {
			t.Fatalf("chunking changed the output:\n%q\n%q", whole, split)
		}
		// Text without controls or invalid UTF-8 passes through unchanged.
		if utf8.Valid(in) && !bytes.ContainsFunc(in, func(r rune) bool {
			return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0)
		}) && whole != string(in) {
			t.Fatalf("plain text changed: %q → %q", in, whole)
		}
	})
}
