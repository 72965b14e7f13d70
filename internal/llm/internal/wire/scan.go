package wire

import (
	"bytes"
	"unicode/utf8"
)

// Scanner reads the few shapes of JSON that stream chunks are made of,
// without reflection and with one allocation per decoded string. It is the
// fast path only: whenever it meets something it is not certain to read
// exactly as encoding/json would (an escaped key, a surrogate pair, a key
// that differs from a known field only in case, a null, deep nesting, any
// syntax error), a method reports false and the caller decodes the line
// with encoding/json instead, which also produces the error message.
// Decoding a token stream this way is several times faster than
// json.Unmarshal (see the benchmarks in internal/llm/ollama and openai).
type Scanner struct {
	b []byte
	i int
}

// maxSkipDepth bounds the nesting Skip follows before handing over.
const maxSkipDepth = 64

// Reset points the scanner at b.
func (s *Scanner) Reset(b []byte) { s.b, s.i = b, 0 }

// Rest returns the input from the cursor on.
func (s *Scanner) Rest() []byte { return s.b[s.i:] }

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *Scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// End reports whether only whitespace is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.b)
}

// Begin consumes an opening '{' or '['.
func (s *Scanner) Begin(open byte) bool {
	if s.peek() != open {
		return false
	}
	s.i++
	return true
}

// NextKey moves to the next member of the current object. It returns
// done at the closing '}'. first is true on the first call for an object.
// Keys with escapes or non-ASCII bytes are not read (ok false).
func (s *Scanner) NextKey(first bool) (key []byte, done, ok bool) {
	if !s.next('}', first, &done) {
		return nil, false, false
	}
	if done {
		return nil, true, true
	}
	if s.peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		if c == '"' {
			key = s.b[start:j]
			s.i = j + 1
			if s.peek() != ':' {
				return nil, false, false
			}
			s.i++
			return key, false, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false, false
		}
	}
	return nil, false, false
}

// NextElem moves to the next element of the current array; done at ']'.
func (s *Scanner) NextElem(first bool) (done, ok bool) {
	ok = s.next(']', first, &done)
	return done, ok
}

// next handles the separator between members or elements.
func (s *Scanner) next(close byte, first bool, done *bool) bool {
	c := s.peek()
	if c == close {
		s.i++
		*done = true
		return true
	}
	if first {
		return c != 0
	}
	if c != ',' {
		return false
	}
	s.i++
	return true
}

// String decodes a string value.
func (s *Scanner) String() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			raw := s.b[start:j]
			if !ascii && !utf8.Valid(raw) {
				return "", false // encoding/json would substitute U+FFFD
			}
			s.i = j + 1
			return string(raw), true
		case c == '\\':
			return s.escaped(start, j)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// escaped decodes a string from its first backslash on.
func (s *Scanner) escaped(start, j int) (string, bool) {
	out := make([]byte, 0, j-start+16)
	out = append(out, s.b[start:j]...)
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				return "", false
			}
			s.i = j + 1
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(s.b) {
			return "", false
		}
		switch e := s.b[j+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s.b[j+2:])
			if !ok || (r >= 0xD800 && r < 0xE000) {
				return "", false // surrogates: leave them to encoding/json
			}
			out = utf8.AppendRune(out, r)
			j += 4
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Bool decodes true or false (not null).
func (s *Scanner) Bool() (bool, bool) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

func (s *Scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// Null consumes a null literal if one is at the cursor.
func (s *Scanner) Null() bool {
	if s.peek() != 'n' {
		return false
	}
	return s.literal("null")
}

// Int decodes an integer without fraction or exponent that fits in 63 bits.
func (s *Scanner) Int() (int64, bool) {
	s.ws()
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	var n int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if s.i-start >= 18 {
			return 0, false
		}
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
