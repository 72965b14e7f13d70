package lsp

import (
	"fmt"
	"unicode/utf8"
)

// Mapper converts between the protocol's positions (zero-based line,
// UTF-16 code units) and byte offsets or rune columns in a file's UTF-8
// text. Lines end at "\n", "\r\n" or "\r", as the protocol says. Invalid
// UTF-8 bytes count as one U+FFFD each, which is one UTF-16 unit: the
// decoder every server uses does the same.
type Mapper struct {
	text   []byte
	starts []int // byte offset where each line starts
}

// NewMapper indexes text's lines. text is kept, not copied.
func NewMapper(text []byte) *Mapper {
	starts := make([]int, 1, 64)
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return &Mapper{text: text, starts: starts}
}

// Text returns the text the mapper indexes.
func (m *Mapper) Text() []byte { return m.text }

// Lines returns the number of lines; a final line terminator does not
// start an extra line of its own for display, but the protocol may
// address it (the empty line after it), so LineText accepts it.
func (m *Mapper) Lines() int {
	n := len(m.starts)
	if n > 1 && m.starts[n-1] == len(m.text) {
		return n - 1
	}
	return n
}

// lineBounds returns the byte span of line (zero-based) without its
// terminator.
func (m *Mapper) lineBounds(line int) (start, end int, ok bool) {
	if line < 0 || line >= len(m.starts) {
		return 0, 0, false
	}
	start = m.starts[line]
	end = len(m.text)
	if line+1 < len(m.starts) {
		end = m.starts[line+1]
		// Trim the terminator: "\n", "\r\n" or "\r".
		if end > start && m.text[end-1] == '\n' {
			end--
		}
		if end > start && m.text[end-1] == '\r' {
			end--
		}
	}
	return start, end, true
}

// LineText returns line (zero-based) without its terminator, or nil when
// the line does not exist.
func (m *Mapper) LineText(line int) []byte {
	s, e, ok := m.lineBounds(line)
	if !ok {
		return nil
	}
	return m.text[s:e]
}

// Offset converts a protocol position to a byte offset. A character past
// the end of its line is clamped to the line's end, as the protocol asks;
// a character inside a surrogate pair maps to the start of its rune. A line
// past the end of the text is an error.
func (m *Mapper) Offset(p Position) (int, error) {
	start, end, ok := m.lineBounds(int(p.Line))
	if !ok {
		return 0, fmt.Errorf("line %d is past the end of the text (%d lines)", int64(p.Line)+1, m.Lines())
	}
	want := int(p.Character)
	units := 0
	i := start
	for i < end && units < want {
		r, size := utf8.DecodeRune(m.text[i:end])
		n := utf16Len(r)
		if units+n > want {
			break // inside a surrogate pair: stay at the rune's start
		}
		units += n
		i += size
	}
	return i, nil
}

// Position converts a byte offset to a protocol position. An offset inside
// a multi-byte rune counts from the start of that rune; an offset past the
// end of the text is an error.
func (m *Mapper) Position(offset int) (Position, error) {
	if offset < 0 || offset > len(m.text) {
		return Position{}, fmt.Errorf("offset %d is outside the text (%d bytes)", offset, len(m.text))
	}
	line := m.lineOf(offset)
	start, end, _ := m.lineBounds(line)
	if offset > end {
		offset = end // inside the terminator: the end of the line
	}
	units := 0
	for i := start; i < offset; {
		r, size := utf8.DecodeRune(m.text[i:end])
		if i+size > offset {
			break
		}
		units += utf16Len(r)
		i += size
	}
	return Position{Line: uint32(line), Character: uint32(units)}, nil
}

// lineOf finds the line holding offset by binary search.
func (m *Mapper) lineOf(offset int) int {
	lo, hi := 0, len(m.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.starts[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// LineCol converts a protocol position to a one-based line and one-based
// rune column, the way a person counts characters. Positions past the end
// of the text are clamped to its end.
func (m *Mapper) LineCol(p Position) (line, col int) {
	off, err := m.Offset(p)
	if err != nil {
		off = len(m.text)
	}
	l := m.lineOf(off)
	start, end, _ := m.lineBounds(l)
	if off > end {
		off = end
	}
	return l + 1, utf8.RuneCount(m.text[start:off]) + 1
}

// PositionAt converts a one-based line and one-based rune column into a
// protocol position. A column past the end of the line is an error, so a
// model's wrong guess is reported rather than silently moved.
func (m *Mapper) PositionAt(line, col int) (Position, error) {
	if line < 1 || line > m.Lines() {
		return Position{}, fmt.Errorf("line %d is out of range: the file has %d lines", line, m.Lines())
	}
	start, end, _ := m.lineBounds(line - 1)
	runes := utf8.RuneCount(m.text[start:end])
	if col < 1 || col > runes+1 {
		return Position{}, fmt.Errorf("character %d is out of range: line %d has %d characters", col, line, runes)
	}
	i := start
	for c := 1; c < col; c++ {
		_, size := utf8.DecodeRune(m.text[i:end])
		i += size
	}
	return m.Position(i)
}

// utf16Len is the number of UTF-16 code units of r; invalid runes decode
// as U+FFFD, one unit.
func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
