package rpc

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name  string
		input string
		max   int
		want  []string // "!" marks a refused line
	}{
		{"lines", "a\nbc\n", 10, []string{"a", "bc"}},
		{"crlf", "a\r\nb\r\n", 10, []string{"a", "b"}},
		{"last line without newline", "a\nb", 10, []string{"a", "b"}},
		{"empty lines kept", "\n\na\n", 10, []string{"", "", "a"}},
		{"exactly the cap", long[:10] + "\n", 10, []string{long[:10]}},
		{"one over the cap", long[:11] + "\nok\n", 10, []string{"!", "ok"}},
		{"far over the cap, then more", long + "\n" + long + "\nok", 10, []string{"!", "!", "ok"}},
		{"over the cap at the end", "ok\n" + long, 10, []string{"ok", "!"}},
		{"crlf at the cap", long[:10] + "\r\n", 10, []string{long[:10]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte per read: lines cross every buffer boundary.
			lr := newLineReader(iotest.OneByteReader(strings.NewReader(tt.input)), tt.max)
			var got []string
			for {
				b, err := lr.next()
				if errors.Is(err, io.EOF) {
					break
				}
				var tooLong errLineTooLong
				switch {
				case errors.As(err, &tooLong):
					got = append(got, "!")
				case err != nil:
					t.Fatal(err)
				default:
					got = append(got, string(b))
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLineReaderBigLineAcrossBuffers(t *testing.T) {
	big := strings.Repeat("y", 300<<10) // several bufio buffers
	lr := newLineReader(strings.NewReader(big+"\nz\n"), 1<<20)
	b, err := lr.next()
	if err != nil || len(b) != len(big) {
		t.Fatalf("big line: %d bytes, %v", len(b), err)
	}
	if b, err := lr.next(); err != nil || string(b) != "z" {
		t.Fatalf("next line %q, %v", b, err)
	}
}
