package lsp

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestMapperOffsetAndPosition(t *testing.T) {
	text := "a😀b\r\nπx\rlast\n"
	m := NewMapper([]byte(text))
	tests := []struct {
		name   string
		pos    Position
		offset int
	}{
		{name: "start", pos: Position{0, 0}, offset: 0},
		{name: "after ascii", pos: Position{0, 1}, offset: 1},
		{name: "after emoji (two units)", pos: Position{0, 3}, offset: 5},
		{name: "end of line before CRLF", pos: Position{0, 4}, offset: 6},
		{name: "second line after pi", pos: Position{1, 1}, offset: 10},
		{name: "line after a lone CR", pos: Position{2, 0}, offset: 12},
		{name: "empty line after final newline", pos: Position{3, 0}, offset: 17},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			off, err := m.Offset(tt.pos)
			if err != nil || off != tt.offset {
				t.Fatalf("Offset(%v) = %d, %v; want %d", tt.pos, off, err, tt.offset)
			}
			pos, err := m.Position(tt.offset)
			if err != nil || pos != tt.pos {
				t.Fatalf("Position(%d) = %v, %v; want %v", tt.offset, pos, err, tt.pos)
			}
		})
	}
}

func TestMapperEdges(t *testing.T) {
	m := NewMapper([]byte("a😀b\nxy"))
	tests := []struct {
		name string
		run  func() (any, error)
		want any
		bad  bool
	}{
		{name: "character past line end clamps", run: func() (any, error) { return m.Offset(Position{0, 99}) }, want: 6},
		{name: "inside surrogate pair maps to rune start", run: func() (any, error) { return m.Offset(Position{0, 2}) }, want: 1},
		{name: "line past end is an error", run: func() (any, error) { return m.Offset(Position{5, 0}) }, bad: true},
		{name: "offset inside emoji counts from its start", run: func() (any, error) { return m.Position(3) }, want: Position{0, 1}},
		{name: "offset in line terminator is line end", run: func() (any, error) { return m.Position(6) }, want: Position{0, 4}},
		{name: "negative offset", run: func() (any, error) { return m.Position(-1) }, bad: true},
		{name: "offset past end", run: func() (any, error) { return m.Position(100) }, bad: true},
		{name: "rune column to position", run: func() (any, error) { return m.PositionAt(1, 3) }, want: Position{0, 3}},
		{name: "column just past line end", run: func() (any, error) { return m.PositionAt(2, 3) }, want: Position{1, 2}},
		{name: "column too far", run: func() (any, error) { return m.PositionAt(2, 4) }, bad: true},
		{name: "line zero", run: func() (any, error) { return m.PositionAt(0, 1) }, bad: true},
		{name: "line past end", run: func() (any, error) { return m.PositionAt(3, 1) }, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.run()
			if tt.bad {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestMapperLineCol(t *testing.T) {
	m := NewMapper([]byte("😀😀 y\n"))
	// y is at UTF-16 character 5 (each emoji takes two units) but is the
	// 4th character a person counts.
	if l, c := m.LineCol(Position{0, 5}); l != 1 || c != 4 {
		t.Fatalf("LineCol = %d:%d, want 1:4", l, c)
	}
	if n := m.Lines(); n != 1 {
		t.Fatalf("Lines = %d, want 1", n)
	}
	if got := string(m.LineText(0)); got != "😀😀 y" {
		t.Fatalf("LineText = %q", got)
	}
}

// FuzzMapper checks that conversions never panic, that every rune
// boundary survives a round trip, and that the UTF-16 count agrees with
// the standard library's encoder.
func FuzzMapper(f *testing.F) {
	for _, s := range []string{"", "abc", "a😀b\r\nπ\rz\n", "\xff\xfe bad utf8 \xc3", "\n\n\r\r\n", "𝄞𝄞𝄞"} {
		f.Add([]byte(s), uint32(0), uint32(2), 3)
	}
	f.Fuzz(func(t *testing.T, text []byte, line, char uint32, offset int) {
		m := NewMapper(text)
		off, err := m.Offset(Position{Line: line, Character: char})
		if err == nil && (off < 0 || off > len(text)) {
			t.Fatalf("Offset out of the text: %d", off)
		}
		p, err := m.Position(offset)
		if err != nil {
			return
		}
		back, err := m.Offset(p)
		if err != nil {
			t.Fatalf("Offset(Position(%d)=%v): %v", offset, p, err)
		}
		if back > offset {
			t.Fatalf("round trip moved forward: %d -> %v -> %d", offset, p, back)
		}
		start, end, _ := m.lineBounds(int(p.Line))
		if offset < end && utf8.Valid(text[start:end]) && utf8.RuneStart(text[offset]) && back != offset {
			t.Fatalf("rune boundary %d did not survive: %v -> %d", offset, p, back)
		}
		if utf8.Valid(text[start:end]) {
			want := len(utf16.Encode([]rune(string(text[start:end]))))
			endPos, _ := m.Position(end)
			if int(endPos.Character) != want {
				t.Fatalf("line %d is %d UTF-16 units, mapper says %d", p.Line, want, endPos.Character)
			}
		}
		l, c := m.LineCol(p)
		if l < 1 || c < 1 {
			t.Fatalf("LineCol(%v) = %d:%d", p, l, c)
		}
	})
}
