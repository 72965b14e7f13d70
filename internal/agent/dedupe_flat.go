package agent

import (
	"bytes"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/jsonnum"
)

// canonicalFlat is canonicalJSON's result for the usual arguments without
// decoding them (a decode into maps and a marshal: a dozen allocations a
// call): an object whose keys are made of letters, digits and '_', in
// increasing order, each value a string without escapes, control
// characters or invalid UTF-8, a number, true, false or null. The
// canonical form of such an object is its tokens without the spaces
// between them, with <, >, &, U+2028 and U+2029 escaped as json.Marshal
// writes them. ok is false for anything else, which the caller decodes
// (FuzzCanonicalFlat checks both agree).
func canonicalFlat(raw []byte) (out []byte, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	out = append(make([]byte, 0, len(raw)+8), '{')
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return append(out, '}'), skipSpace(raw, i+1) == len(raw)
	}
	var prev []byte
	for n := 0; ; n++ {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		j := i + 1
		for j < len(raw) && keyByte(raw[j]) {
			j++
		}
		if j >= len(raw) || raw[j] != '"' {
			return nil, false
		}
		key := raw[i+1 : j]
		if n > 0 {
			if bytes.Compare(prev, key) >= 0 { // not sorted, or twice
				return nil, false
			}
			out = append(out, ',')
		}
		prev = key
		out = append(append(out, raw[i:j+1]...), ':')
		if i = skipSpace(raw, j+1); i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		if out, i, ok = flatValue(raw, skipSpace(raw, i+1), out); !ok {
			return nil, false
		}
		switch i = skipSpace(raw, i); {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == '}':
			return append(out, '}'), skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// flatValue appends the scalar at raw[i:] in canonical form.
func flatValue(raw []byte, i int, out []byte) ([]byte, int, bool) {
	if i >= len(raw) {
		return out, i, false
	}
	switch c := raw[i]; {
	case c == '"':
		return flatString(raw, i, out)
	case c == '-' || (c >= '0' && c <= '9'):
		j := jsonnum.End(raw, i)
		return append(out, raw[i:j]...), j, j > i
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(raw[i:], []byte(lit)) {
			return append(out, lit...), i + len(lit), true
		}
	}
	return out, i, false
}

// flatString appends the string at raw[i:] (opening quote) as
// json.Marshal writes it; false for a string with an escape, a control
// character or invalid UTF-8.
func flatString(raw []byte, i int, out []byte) ([]byte, int, bool) {
	out = append(out, '"')
	for j := i + 1; j < len(raw); {
		c := raw[j]
		switch {
		case c == '"':
			return append(out, '"'), j + 1, true
		case c == '\\' || c < 0x20:
			return out, j, false
		case c == '<' || c == '>' || c == '&':
			out = append(out, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xF])
			j++
		case c < utf8.RuneSelf:
			out = append(out, c)
			j++
		default:
			r, size := utf8.DecodeRune(raw[j:])
			if r == utf8.RuneError && size == 1 {
				return out, j, false
			}
			if r == '\u2028' || r == '\u2029' {
				out = append(out, `\u202`...)
				out = append(out, "89"[r-'\u2028'])
			} else {
				out = append(out, raw[j:j+size]...)
			}
			j += size
		}
	}
	return out, len(raw), false
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

func keyByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
