package shell

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// maxLineBuffer bounds the bytes of one line the Sanitizer holds while it
// waits for the line's end: a program printing a gigabyte without a newline
// must not take a gigabyte of memory. Longer lines are passed on in pieces.
const maxLineBuffer = 64 << 10

// maxCursorMove bounds how far one escape sequence may move the cursor
// right, so "ESC[999999999C" cannot make a line of a billion spaces.
const maxCursorMove = 1024

// Sanitizer turns what a program wrote to a terminal into plain text lines
// for a model to read. It works on a stream, in any chunking, and gives the
// same lines however the input is split.
//
//   - Escape sequences are removed: CSI (colours, cursor movement), OSC
//     (titles, hyperlinks, VS Code's "ESC ] 633 ;" shell-integration marks),
//     DCS/SOS/PM/APC strings and two-byte escapes.
//   - Carriage returns, backspaces and the cursor moves progress bars use
//     (CSI K, G, C, D) are applied the way a terminal would, so a line that
//     was redrawn a hundred times appears once, in its final state.
//   - Invalid UTF-8 becomes U+FFFD; control characters other than tab are
//     dropped; lines never contain ESC.
//
// A string sequence (OSC and the like) also ends at a newline, so a
// malformed one swallows at most the rest of its line.
type Sanitizer struct {
	emit func(text []byte)

	st     sanState
	params [4]int
	nparam int
	priv   bool

	// UTF-8 decoding that survives chunk boundaries.
	ubuf  [4]byte
	ulen  int
	uneed int
	ulo   byte
	uhi   byte

	// The line being built: bytes of valid UTF-8, the cursor as a byte
	// offset on a rune boundary, and pad virtual spaces between the end of
	// line and the cursor.
	line    []byte
	cur     int
	pad     int
	lineMax int
}

type sanState uint8

const (
	stGround sanState = iota
	stEsc
	stEscInter
	stCSI
	stCSIInter
	stString
	stStringEsc
)

// NewSanitizer returns a Sanitizer that passes the sanitized text to emit
// as it becomes final: lines end with '\n', and a line is held back until
// it ends (a carriage return could still rewrite it) unless it grows past
// the Sanitizer's buffer, when it is passed on in pieces. Pieces are cut on
// UTF-8 boundaries. text is only valid during the call.
func NewSanitizer(emit func(text []byte)) *Sanitizer {
	return &Sanitizer{emit: emit, lineMax: maxLineBuffer}
}

// plainByte reports whether b passes through unchanged when the cursor is
// at the end of the line: printable ASCII, tab and newline.
func plainByte(b byte) bool {
	return b-0x20 < 0x5f || b == '\n' || b == '\t'
}

// Write sanitizes p. It never fails.
func (s *Sanitizer) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		if s.st != stGround || s.uneed != 0 || !plainByte(p[i]) {
			s.byte(p[i])
			i++
			continue
		}
		j := i + 1
		for j < len(p) && plainByte(p[j]) {
			j++
		}
		s.putPlain(p[i:j])
		i = j
	}
	return len(p), nil
}

// putPlain writes a run of plain bytes. Complete lines in it pass straight
// through when nothing can overwrite them (the cursor is at the end of the
// line), which makes ordinary output cheap.
func (s *Sanitizer) putPlain(run []byte) {
	if last := bytes.LastIndexByte(run, '\n'); last >= 0 && s.cur == len(s.line) && s.pad == 0 {
		if len(s.line) > 0 {
			s.emit(s.line)
			s.line = s.line[:0]
			s.cur = 0
		}
		s.emit(run[:last+1])
		run = run[last+1:]
	}
	for len(run) > 0 {
		nl := bytes.IndexByte(run, '\n')
		if nl < 0 {
			s.putASCII(run)
			return
		}
		s.putASCII(run[:nl])
		s.endLine()
		run = run[nl+1:]
	}
}

// WriteString is Write for a string.
func (s *Sanitizer) WriteString(str string) (int, error) {
	return s.Write([]byte(str))
}

// Close ends the input: an incomplete UTF-8 sequence becomes U+FFFD, and a
// last line without a newline is passed on (without one).
func (s *Sanitizer) Close() {
	if s.uneed > 0 {
		s.badRune()
	}
	s.st = stGround
	if len(s.line) > 0 {
		s.emit(s.line)
	}
	s.line = s.line[:0]
	s.cur, s.pad = 0, 0
}

// byte runs the state machine on one byte that is not part of a fast-path
// ASCII run.
func (s *Sanitizer) byte(b byte) {
	switch s.st {
	case stGround:
		s.ground(b)
	case stEsc:
		s.esc(b)
	case stEscInter:
		switch {
		case b >= 0x20 && b <= 0x2f:
		case b >= 0x30 && b <= 0x7e:
			s.st = stGround
		default:
			s.st = stGround
			s.ground(b)
		}
	case stCSI, stCSIInter:
		s.csi(b)
	case stString:
		switch b {
		case 0x07:
			s.st = stGround
		case 0x1b:
			s.st = stStringEsc
		case '\n':
			s.st = stGround
			s.ground(b)
		}
	case stStringEsc:
		if b == '\\' {
			s.st = stGround
			return
		}
		s.st = stEsc
		s.esc(b)
	}
}

func (s *Sanitizer) ground(b byte) {
	if s.uneed > 0 {
		if b >= s.ulo && b <= s.uhi {
			s.ubuf[s.ulen] = b
			s.ulen++
			s.uneed--
			s.ulo, s.uhi = 0x80, 0xbf
			if s.uneed == 0 {
				s.putRune(s.ubuf[:s.ulen])
				s.ulen = 0
			}
			return
		}
		// The sequence broke off: replace what we had, then look at b
		// afresh (Unicode's "maximal subpart" replacement).
		s.badRune()
	}
	switch {
	case b >= 0x20 && b < 0x7f:
		s.putASCII([]byte{b})
	case b == '\n':
		s.endLine()
	case b == '\r':
		s.cur, s.pad = 0, 0
	case b == '\b':
		s.back(1)
	case b == '\t':
		s.putRune([]byte{'\t'})
	case b == 0x1b:
		s.st = stEsc
	case b < 0x80:
		// Other C0 controls and DEL: nothing a reader needs.
	default:
		s.startRune(b)
	}
}

// startRune begins a multi-byte UTF-8 sequence at lead byte b, with the
// ranges the second byte must fall in to be valid (RFC 3629).
func (s *Sanitizer) startRune(b byte) {
	lo, hi := byte(0x80), byte(0xbf)
	var need int
	switch {
	case b >= 0xc2 && b <= 0xdf:
		need = 1
	case b == 0xe0:
		need, lo = 2, 0xa0
	case b >= 0xe1 && b <= 0xec, b == 0xee, b == 0xef:
		need = 2
	case b == 0xed:
		need, hi = 2, 0x9f
	case b == 0xf0:
		need, lo = 3, 0x90
	case b >= 0xf1 && b <= 0xf3:
		need = 3
	case b == 0xf4:
		need, hi = 3, 0x8f
	default:
		s.putRune([]byte(string(utf8.RuneError)))
		return
	}
	s.ubuf[0] = b
	s.ulen, s.uneed, s.ulo, s.uhi = 1, need, lo, hi
}

func (s *Sanitizer) badRune() {
	s.ulen, s.uneed = 0, 0
	s.putRune([]byte(string(utf8.RuneError)))
}

func (s *Sanitizer) esc(b byte) {
	switch {
	case b == '[':
		s.st = stCSI
		s.params = [4]int{}
		s.nparam, s.priv = 0, false
	case b == ']', b == 'P', b == 'X', b == '^', b == '_':
		s.st = stString
	case b >= 0x20 && b <= 0x2f:
		s.st = stEscInter
	case b >= 0x30 && b <= 0x7e:
		s.st = stGround
	case b == 0x1b:
	default:
		s.st = stGround
		s.ground(b)
	}
}

func (s *Sanitizer) csi(b byte) {
	switch {
	case b >= 0x30 && b <= 0x3f && s.st == stCSI:
		s.csiParam(b)
	case b >= 0x20 && b <= 0x2f:
		s.st = stCSIInter
	case b >= 0x40 && b <= 0x7e:
		s.st = stGround
		if !s.priv {
			s.csiDispatch(b)
		}
	case b == 0x1b:
		s.st = stEsc
	default:
		// Not part of a CSI sequence: drop the sequence, keep the byte.
		s.st = stGround
		s.ground(b)
	}
}

func (s *Sanitizer) csiParam(b byte) {
	switch {
	case b >= '0' && b <= '9':
		if s.nparam == 0 {
			s.nparam = 1
		}
		if p := &s.params[s.nparam-1]; *p < 100000 {
			*p = *p*10 + int(b-'0')
		}
	case b == ';' || b == ':':
		if s.nparam == 0 {
			s.nparam = 1
		}
		if s.nparam < len(s.params) {
			s.nparam++
		}
	default: // '<' '=' '>' '?': private sequences change modes, not text
		s.priv = true
	}
}

// csiDispatch applies the few CSI sequences that change a line's text;
// the rest (colours, scrolling, modes) have no place in plain text.
func (s *Sanitizer) csiDispatch(final byte) {
	n := s.params[0]
	switch final {
	case 'K':
		s.eraseLine(n)
	case 'G':
		s.cur, s.pad = 0, 0
		s.forward(max(n, 1) - 1)
	case 'C':
		s.forward(max(n, 1))
	case 'D':
		s.back(max(n, 1))
	}
}

// SanitizeLines returns the plain text lines of terminal output b (see
// Sanitizer). A final line without a newline is included.
func SanitizeLines(b []byte) []string {
	text := Sanitize(b)
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// Sanitize returns terminal output b as plain text (see Sanitizer).
func Sanitize(b []byte) string {
	var out strings.Builder
	s := NewSanitizer(func(text []byte) { out.Write(text) })
	_, _ = s.Write(b)
	s.Close()
	return out.String()
}
