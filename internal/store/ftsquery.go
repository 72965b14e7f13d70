package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a search turns into an FTS5 query, so a pasted page of
// text cannot make a query that runs for seconds.
const (
	maxQueryTerms    = 24
	maxQueryTermSize = 200
)

// ftsQuery turns what a person typed into an FTS5 query that can never be
// a syntax error: every word or "quoted phrase" becomes a quoted FTS5
// string (an internal " doubled), so FTS5 operators, column filters and
// parentheses are matched as text. The terms are ANDed. A term ending in *
// is a prefix search; prefixAll makes every term one (type-ahead recall).
// It returns "" when nothing searchable is left.
func ftsQuery(input string, prefixAll bool) string {
	var b strings.Builder
	n := 0
	for _, t := range splitTerms(input) {
		if n == maxQueryTerms {
			break
		}
		prefix := prefixAll
		if strings.HasSuffix(t, "*") {
			t = strings.TrimRight(t, "*")
			prefix = true
		}
		text := cleanTerm(t)
		if !hasWordChar(text) {
			continue // only punctuation: nothing the tokenizer would index
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(text, `"`, `""`))
		b.WriteByte('"')
		if prefix {
			b.WriteByte('*')
		}
		n++
	}
	return b.String()
}

// splitTerms splits input into words and "quoted phrases". An unclosed
// quote runs to the end of the input.
func splitTerms(input string) []string {
	var out []string
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRuneInString(input[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '"':
			end := strings.IndexByte(input[i+1:], '"')
			if end < 0 {
				out = append(out, input[i+1:])
				return out
			}
			rest := input[i+1+end+1:]
			text := input[i+1 : i+1+end]
			i = i + 1 + end + 1
			if strings.HasPrefix(rest, "*") { // "phrase"* is a prefix search too
				text += "*"
				i++
			}
			out = append(out, text)
		default:
			j := i
			for j < len(input) {
				r, size := utf8.DecodeRuneInString(input[j:])
				if unicode.IsSpace(r) || r == '"' {
					break
				}
				j += size
			}
			out = append(out, input[i:j])
			i = j
		}
	}
	return out
}

// cleanTerm drops control characters (a NUL ends an FTS5 string early and
// makes a syntax error), invalid UTF-8, and caps the size.
func cleanTerm(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > maxQueryTermSize {
		cut := maxQueryTermSize
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

func hasWordChar(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
