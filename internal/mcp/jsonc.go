package mcp

import "strings"

// StripJSONC turns JSON with comments (VS Code's settings.json and
// mcp.json) into JSON: // and /* */ comments outside strings become
// spaces, and commas before a closing } or ] are dropped. Anything else is
// left for the JSON decoder to judge.
func StripJSONC(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			i += 2
			for i < len(data) && !(data[i] == '*' && i+1 < len(data) && data[i+1] == '/') {
				i++
			}
			i++ // past the '/'
			out = append(out, ' ')
		case c == '}' || c == ']':
			out = dropTrailingComma(out)
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// dropTrailingComma removes a comma that only whitespace separates from
// the end of out.
func dropTrailingComma(out []byte) []byte {
	j := len(out) - 1
	for j >= 0 && strings.IndexByte(" \t\r\n", out[j]) >= 0 {
		j--
	}
	if j >= 0 && out[j] == ',' {
		return append(out[:j], out[j+1:]...)
	}
	return out
}
