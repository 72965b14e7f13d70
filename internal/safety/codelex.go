package safety

import (
	"strings"
)

// A tiny, language-agnostic lexer for the inline-code heuristics: enough to
// find a call's arguments and read string literals in Python, Perl, Ruby,
// JavaScript, PHP, Lua and awk. It never fails; what it cannot read is
// reported as "not a literal", which the callers treat as unknown.

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// indexWord finds pat in s as a whole word.
func indexWord(s, pat string) int {
	from := 0
	for {
		i := strings.Index(s[from:], pat)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(pat)
		okBefore := i == 0 || !isIdent(s[i-1]) || !isIdent(pat[0])
		okAfter := end == len(s) || !isIdent(s[end]) || !isIdent(pat[len(pat)-1])
		if okBefore && okAfter {
			return i
		}
		from = i + 1
	}
}

// callArgs returns the arguments of a call whose name ends at from:
// `name(a, b)`, or `name "a", "b"` (Perl, Ruby and AppleScript call
// without parens; elsewhere a name followed by a string is not a call).
func callArgs(text string, from int, lang string) ([]string, bool) {
	j := from
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j >= len(text) {
		return nil, false
	}
	switch text[j] {
	case '(':
		end := matchClose(text, j)
		return splitTopLevel(text[j+1 : end]), true
	case '\'', '"':
		if lang != "perl" && lang != "ruby" && lang != "osascript" {
			return nil, false
		}
		end := j
		for end < len(text) && !strings.ContainsRune(";\n}", rune(text[end])) {
			if q := text[end]; q == '\'' || q == '"' {
				end = skipQuoted(text, end)
				continue
			}
			end++
		}
		return splitTopLevel(text[j:end]), true
	}
	// perl and ruby call functions without parentheses: unlink glob(…),
	// system $cmd, rmtree $ENV{HOME}. The arguments run to the end of the
	// statement.
	if c := text[j]; (lang == "perl" || lang == "ruby") && (c == '$' || c == '@' || c == '%' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		end := j
		for end < len(text) && !strings.ContainsRune(";\n}", rune(text[end])) {
			switch text[end] {
			case '\'', '"', '`':
				end = skipQuoted(text, end)
				continue
			case '(', '[', '{':
				end = matchClose(text, end) + 1
				continue
			}
			end++
		}
		if end > len(text) {
			end = len(text)
		}
		return splitTopLevel(text[j:end]), true
	}
	return nil, false
}

// matchClose returns the index of the bracket closing the one at open, or
// len(s) when it is not closed.
func matchClose(s string, open int) int {
	depth := 0
	for i := open; i < len(s); {
		switch s[i] {
		case '\'', '"', '`':
			i = skipQuoted(s, i)
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return len(s)
}

// skipQuoted returns the index just after the string starting at i.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// splitTopLevel splits on commas outside brackets and strings.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '\'', '"', '`':
			i = skipQuoted(s, i)
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" {
					out = append(out, a)
				}
				start = i + 1
			}
		}
		i++
	}
	if a := strings.TrimSpace(s[start:]); a != "" {
		out = append(out, a)
	}
	return out
}

// literalOf reads arg as one string literal; interpolating strings (f"",
// Perl "$x", Ruby "#{x}", JS `${x}`) are not literals.
func literalOf(arg, lang string) (string, bool) {
	arg = strings.TrimSpace(arg)
	if lang == "python" || lang == "pypy" {
		for len(arg) > 1 && strings.ContainsRune("rRbBuU", rune(arg[0])) && arg[1] != '(' {
			arg = arg[1:]
		}
	}
	if len(arg) < 2 {
		return "", false
	}
	q := arg[0]
	if q != '\'' && q != '"' && !(q == '`' && (lang == "node" || lang == "bun" || lang == "deno")) {
		return "", false
	}
	if skipQuoted(arg, 0) != len(arg) || len(arg) == 2 {
		return "", false
	}
	body := arg[1 : len(arg)-1]
	if q != '\'' {
		switch {
		case (lang == "perl" || lang == "php") && strings.ContainsAny(body, "$@"),
			lang == "ruby" && strings.Contains(body, "#{"),
			q == '`' && strings.Contains(body, "${"):
			return "", false
		}
	}
	return unescapeCode(body), true
}

func unescapeCode(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func argLiteral(args []string, i int, lang string) (string, bool) {
	if i < 0 || i >= len(args) {
		return "", false
	}
	return literalOf(args[i], lang)
}

func argLiteralText(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func allLiterals(args []string, lang string) ([]string, bool) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		s, ok := literalOf(a, lang)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// listOf reads a list of string literals: [..] in most languages, qw(..)
// in Perl, %w[..] in Ruby.
func listOf(arg, lang string) ([]string, bool) {
	arg = strings.TrimSpace(arg)
	switch {
	case strings.HasPrefix(arg, "qw") && len(arg) > 3 && lang == "perl":
		return strings.Fields(arg[3 : len(arg)-1]), true
	case strings.HasPrefix(arg, "%w") && len(arg) > 3 && lang == "ruby":
		return strings.Fields(arg[3 : len(arg)-1]), true
	case len(arg) >= 2 && (arg[0] == '[' && arg[len(arg)-1] == ']' || arg[0] == '(' && arg[len(arg)-1] == ')'):
		return allLiterals(splitTopLevel(arg[1:len(arg)-1]), lang)
	}
	return nil, false
}

// receiverLiteral reads the literal in a call just before a method:
// Path('x') in Path('x').unlink().
func receiverLiteral(before, lang string) (string, bool) {
	before = strings.TrimRight(before, " \t")
	if !strings.HasSuffix(before, ")") {
		return "", false
	}
	depth := 0
	for i := len(before) - 1; i >= 0; i-- {
		switch before[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return literalOf(before[i+1:len(before)-1], lang)
			}
		}
	}
	return "", false
}

// backticks returns the commands inside `…` (Perl, Ruby, PHP).
func backticks(text string) []string {
	var out []string
	for i := 0; i < len(text) && len(out) < 8; i++ {
		if text[i] != '`' {
			continue
		}
		end := strings.IndexByte(text[i+1:], '`')
		if end < 0 {
			break
		}
		out = append(out, text[i+1:i+1+end])
		i += end + 1
	}
	return out
}

// leadingLiteral reads a double-quoted awk string at the start of s and
// returns it with the number of bytes it took.
func leadingLiteral(s string) (string, int, bool) {
	if !strings.HasPrefix(s, "\"") {
		return "", 0, false
	}
	end := skipQuoted(s, 0)
	if end > len(s) || s[end-1] != '"' || end < 2 {
		return "", 0, false
	}
	return unescapeCode(s[1 : end-1]), end, true
}
