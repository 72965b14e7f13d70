package checkpoint

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// maxTextBytes is the largest file reviewed line by line (the same limit
// write_file uses for its diffs); past it, or for binary content, a file is
// kept or undone as a whole.
const maxTextBytes = 4 << 20

// splitLines cuts b into lines that keep their terminators, so joining them
// gives b back byte for byte (a last line without "\n" stays without it, and
// "\r\n" stays inside its line).
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	out := make([]string, 0, n)
	s := string(b)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// joinLines is the inverse of splitLines.
func joinLines(lines []string) []byte {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	out := make([]byte, 0, n)
	for _, l := range lines {
		out = append(out, l...)
	}
	return out
}

// splice returns lines with lines[from:to] replaced by repl, in a new slice.
func splice(lines []string, from, to int, repl []string) []string {
	out := make([]string, 0, len(lines)-(to-from)+len(repl))
	out = append(out, lines[:from]...)
	out = append(out, repl...)
	return append(out, lines[to:]...)
}

// textual reports whether b is reviewed line by line: valid UTF-8 without
// NUL bytes, and not too large to diff.
func textual(b []byte) bool {
	return len(b) <= maxTextBytes && bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// countLines counts lines as a person would: a final line without a newline
// counts, an empty file has none (as write_file counts them).
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
