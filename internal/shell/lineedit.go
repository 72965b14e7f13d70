package shell

import (
	"strings"
	"unicode/utf8"
)

// The Sanitizer's line model: the line being built is a byte slice of
// valid UTF-8 with a cursor, and text is written at the cursor the way a
// terminal writes it to the screen, overwriting what is there. That is all
// it takes to turn a progress bar redrawn a hundred times with carriage
// returns and erase sequences into its final state.

// putASCII writes printable ASCII at the cursor.
func (s *Sanitizer) putASCII(run []byte) {
	for len(run) > 0 {
		if s.cur == len(s.line) && s.pad == 0 {
			if len(s.line) >= s.lineMax {
				s.flushPartial()
			}
			n := min(len(run), s.lineMax-len(s.line))
			s.line = append(s.line, run[:n]...)
			s.cur = len(s.line)
			run = run[n:]
			continue
		}
		s.putRune(run[:1])
		run = run[1:]
	}
}

// putRune writes one encoded rune at the cursor, overwriting what is there.
func (s *Sanitizer) putRune(r []byte) {
	if len(r) == 2 && r[0] == 0xc2 && r[1] < 0xa0 {
		return // C1 control (U+0080–U+009F)
	}
	if s.cur == len(s.line) {
		if len(s.line)+s.pad+len(r) > s.lineMax {
			s.flushPartial()
		}
		for ; s.pad > 0; s.pad-- {
			s.line = append(s.line, ' ')
		}
		s.line = append(s.line, r...)
		s.cur = len(s.line)
		return
	}
	_, old := utf8.DecodeRune(s.line[s.cur:])
	if old == len(r) {
		copy(s.line[s.cur:], r)
	} else {
		tail := s.line[s.cur+old:]
		grown := make([]byte, 0, len(s.line)-old+len(r))
		grown = append(grown, s.line[:s.cur]...)
		grown = append(grown, r...)
		grown = append(grown, tail...)
		s.line = grown
	}
	s.cur += len(r)
}

// flushPartial passes on the buffered part of an over-long line. What was
// passed on can no longer be overwritten; the cursor stays at the end.
func (s *Sanitizer) flushPartial() {
	s.emit(s.line)
	s.line = s.line[:0]
	s.cur = 0
}

func (s *Sanitizer) endLine() {
	s.line = append(s.line, '\n')
	s.emit(s.line)
	s.line = s.line[:0]
	s.cur, s.pad = 0, 0
}

// back moves the cursor n columns left (backspace, CSI D).
func (s *Sanitizer) back(n int) {
	for ; n > 0 && s.pad > 0; n-- {
		s.pad--
	}
	for ; n > 0 && s.cur > 0; n-- {
		_, size := utf8.DecodeLastRune(s.line[:s.cur])
		s.cur -= size
	}
}

// forward moves the cursor n columns right (CSI C, G), past the end of the
// line if need be: the gap becomes spaces once something is written there.
func (s *Sanitizer) forward(n int) {
	n = min(n, maxCursorMove)
	for ; n > 0 && s.cur < len(s.line); n-- {
		_, size := utf8.DecodeRune(s.line[s.cur:])
		s.cur += size
	}
	if s.cur == len(s.line) {
		s.pad = min(s.pad+n, maxCursorMove)
	}
}

// eraseLine applies CSI K: 0 erases from the cursor to the end of the
// line, 1 from the start of the line through the cursor, 2 the whole line.
// The cursor does not move.
func (s *Sanitizer) eraseLine(mode int) {
	switch mode {
	case 0:
		s.line = s.line[:s.cur]
	case 1:
		// Up to and including the cursor's cell.
		cols := utf8.RuneCount(s.line[:s.cur])
		if s.cur == len(s.line) {
			s.line = append(s.line[:0], strings.Repeat(" ", cols)...)
			s.cur = len(s.line)
			return
		}
		_, size := utf8.DecodeRune(s.line[s.cur:])
		rest := append([]byte(nil), s.line[s.cur+size:]...)
		s.line = append(append(s.line[:0], strings.Repeat(" ", cols+1)...), rest...)
		s.cur = cols
	case 2:
		cols := utf8.RuneCount(s.line[:s.cur]) + s.pad
		s.line = s.line[:0]
		s.cur, s.pad = 0, min(cols, maxCursorMove)
	}
}
