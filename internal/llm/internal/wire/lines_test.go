package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t testing.TB, r *LineReader) ([]string, error) {
	var out []string
	for {
		l, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, err
		}
		out = append(out, string(l))
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{name: "LF", in: "a\nb\n", want: []string{"a", "b"}},
		{name: "CRLF", in: "a\r\nb\r\n", want: []string{"a", "b"}},
		{name: "last line without newline", in: "a\nb", want: []string{"a", "b"}},
		{name: "blank lines kept", in: "a\n\n\nb\n", want: []string{"a", "", "", "b"}},
		{name: "only a CR before LF is stripped", in: "a\r\r\n", want: []string{"a\r"}},
		{name: "empty input", in: "", want: nil},
		{name: "line longer than the buffer", in: "s\n" + long + "\nt\n", want: []string{"s", long, "t"}},
		{name: "long last line without newline", in: long, want: []string{long}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
				got, err := readAll(t, NewLineReader(wrap(strings.NewReader(tc.in)), 0))
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestLineReaderNumbersLines(t *testing.T) {
	r := NewLineReader(strings.NewReader("a\n\nb\n"), 0)
	for want := 1; want <= 3; want++ {
		if _, err := r.Next(); err != nil || r.Line() != want {
			t.Fatalf("line %d: %v", r.Line(), err)
		}
	}
}

func TestLineReaderLimitAndErrors(t *testing.T) {
	r := NewLineReader(strings.NewReader(strings.Repeat("y", 100_000)+"\n"), 70_000)
	if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("over the limit: %v", err)
	}
	boom := errors.New("connection reset")
	r = NewLineReader(io.MultiReader(strings.NewReader("ok\npartial"), iotest.ErrReader(boom)), 0)
	if l, err := r.Next(); err != nil || string(l) != "ok" {
		t.Fatalf("first line %q %v", l, err)
	}
	if l, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("partial line before an error: %q %v, want the error", l, err)
	}
	r = NewLineReader(io.MultiReader(strings.NewReader(strings.Repeat("z", 100_000)), iotest.ErrReader(boom)), 0)
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("long partial line before an error: %v", err)
	}
}

// Memory stays proportional to the longest line: reading many long lines
// reuses one buffer instead of growing with the stream.
func TestLineReaderReusesItsBuffer(t *testing.T) {
	line := strings.Repeat("w", 1<<20) + "\n"
	r := NewLineReader(strings.NewReader(strings.Repeat(line, 20)), 0)
	if got, err := readAll(t, r); err != nil || len(got) != 20 {
		t.Fatalf("%d lines, %v", len(got), err)
	}
	if c := cap(r.buf); c > 3<<20 {
		t.Errorf("buffer grew to %d bytes for 1 MiB lines", c)
	}
}

// FuzzLineReader checks the reader against bytes.Split.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"a\nb", "a\r\n\r\n", "\n", "", "x\ry\n", strings.Repeat("q", 70_000) + "\nz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := readAll(t, NewLineReader(iotest.HalfReader(bytes.NewReader(in)), 0))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		parts := bytes.Split(in, []byte("\n"))
		if len(parts[len(parts)-1]) == 0 {
			parts = parts[:len(parts)-1]
		}
		for _, p := range parts {
			want = append(want, string(bytes.TrimSuffix(p, []byte("\r"))))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("input %q (-want +got):\n%s", in, d)
		}
	})
}

// A released reader's buffer serves the next reader; the released one
// reads nothing more.
func TestLineReaderRelease(t *testing.T) {
	a := NewLineReader(strings.NewReader("one\ntwo\n"), 0)
	if l, err := a.Next(); err != nil || string(l) != "one" {
		t.Fatalf("first line %q, %v", l, err)
	}
	a.Release()
	a.Release() // twice is harmless
	if _, err := a.Next(); !errors.Is(err, errReleased) {
		t.Fatalf("Next after Release: %v, want errReleased", err)
	}
	b := NewLineReader(strings.NewReader("three\n"), 0)
	defer b.Release()
	if l, err := b.Next(); err != nil || string(l) != "three" {
		t.Fatalf("next reader's line %q, %v", l, err)
	}
	if _, err := b.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last line: %v, want io.EOF", err)
	}
}
