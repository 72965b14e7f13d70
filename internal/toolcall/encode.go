package toolcall

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// appendJSON appends v as strict JSON. Object members keep their order; a
// name repeated in one object keeps its first value, the one the parser's
// lookups see, so a tool never reads a different value than the one olly
// used to identify the call.
func (v *value) appendJSON(b []byte) []byte {
	switch v.kind {
	case kindObject:
		b = append(b, '{')
		var seen map[string]bool
		if len(v.keys) > 16 {
			seen = make(map[string]bool, len(v.keys))
		}
		n := 0
		for i, k := range v.keys {
			if seen != nil {
				if seen[k] {
					continue
				}
				seen[k] = true
			} else if firstIndex(v.keys, k) != i {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = appendString(b, k)
			b = append(b, ':')
			b = v.elems[i].appendJSON(b)
		}
		return append(b, '}')
	case kindArray:
		b = append(b, '[')
		for i, e := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendJSON(b)
		}
		return append(b, ']')
	case kindString:
		return appendString(b, v.str)
	default:
		return append(b, v.str...)
	}
}

// firstIndex returns the index of the first k in keys. Most objects in tool
// calls are small, where a linear scan beats building a set.
func firstIndex(keys []string, k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

// encode returns v as strict JSON, sized in one allocation.
func (v *value) encode() []byte {
	return v.appendJSON(make([]byte, 0, v.size()))
}

// size estimates the length of v's encoding (exact unless strings need
// escapes).
func (v *value) size() int {
	switch v.kind {
	case kindObject, kindArray:
		n := 2 + len(v.elems)
		for i, e := range v.elems {
			n += e.size()
			if v.kind == kindObject {
				n += len(v.keys[i]) + 3
			}
		}
		return n
	case kindString:
		return len(v.str) + 2 + len(v.str)/16
	default:
		return len(v.str)
	}
}

// plainByte marks the bytes a JSON string holds as they are: printable
// ASCII other than '"' and '\\'. It is never written.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does, so the output is always valid JSON.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainByte[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
