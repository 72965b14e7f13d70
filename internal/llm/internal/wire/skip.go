package wire

import (
	"bytes"

	"github.com/olly-agent/olly/internal/jsonnum"
)

// Skip moves past one value of any kind, checking its syntax.
func (s *Scanner) Skip() bool { return s.skip(0) }

// Raw moves past one value and returns its bytes.
func (s *Scanner) Raw() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip(0) {
		return nil, false
	}
	return s.b[start:s.i], true
}

func (s *Scanner) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch c := s.peek(); {
	case c == '"':
		return s.skipString()
	case c == '{':
		return s.Object(func([]byte) bool { return s.skip(depth + 1) })
	case c == '[':
		return s.Array(func() bool { return s.skip(depth + 1) })
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.skipNumber()
	}
	return false
}

func (s *Scanner) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if j+1 >= len(s.b) {
				return false
			}
			switch s.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if _, ok := hex4(s.b[j+2:]); !ok {
					return false
				}
				j += 5
			default:
				return false
			}
		}
	}
	return false
}

// skipNumber moves past a number (JSON's grammar, jsonnum.End).
func (s *Scanner) skipNumber() bool {
	j := jsonnum.End(s.b, s.i)
	if j == s.i {
		return false
	}
	s.i = j
	return true
}

// FoldsTo reports whether key equals one of names ignoring case.
// encoding/json matches field names that way, so a fast decoder that meets
// such a key must hand over rather than skip it.
func FoldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if len(n) == len(key) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}
