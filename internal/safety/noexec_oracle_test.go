package safety

import "strings"

// This is the tokenizer internal/shell used to find set -n before Check
// parsed each command once (kept as the oracle of TestCheckMatchesSeparateChecks
// and FuzzCheck: SetsNoexec must find everything it found).

func tokenSetsNoexec(command string) bool {
	words := tokenSplit(command)
	for i := 0; i < len(words); i++ {
		if !tokenCommandPosition(words, i) {
			continue
		}
		j := i
		for j < len(words) && (words[j] == "builtin" || words[j] == "command") {
			j++
		}
		if j >= len(words) {
			return false
		}
		args := tokenWordsUntilOperator(words[j+1:])
		switch words[j] {
		case "set":
			if tokenSetArgs(args) {
				return true
			}
		case "shopt":
			if tokenShoptArgs(args) {
				return true
			}
		}
	}
	return false
}

func tokenSetArgs(args []string) bool {
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-"):
			return false // what follows are positional parameters
		case a == "-o":
			if k+1 < len(args) && args[k+1] == "noexec" {
				return true
			}
			k++
		case isOptionGroup(a[1:]) && strings.Contains(a, "n"):
			return true
		}
	}
	return false
}

func tokenShoptArgs(args []string) bool {
	var set, o, name bool
	for _, a := range args {
		switch {
		case a == "noexec":
			name = true
		case strings.HasPrefix(a, "-") && isOptionGroup(a[1:]):
			set = set || strings.Contains(a, "s")
			o = o || strings.Contains(a, "o")
		}
	}
	return set && o && name
}

// tokenCommandPosition reports whether words[i] starts a simple command:
// the first word, or one after a control operator, a group, or a
// reserved word that a command follows.
func tokenCommandPosition(words []string, i int) bool {
	if i == 0 {
		return true
	}
	switch words[i-1] {
	case ";", "&", "&&", "||", "|", "|&", "\n", "(", ")", "{", "}", "!", "then", "do", "else", "elif", "if", "while", "until", "time":
		return true
	}
	return false
}

func tokenWordsUntilOperator(words []string) []string {
	for k, w := range words {
		switch w {
		case ";", "&", "&&", "||", "|", "|&", "\n", "(", ")", "{", "}":
			return words[:k]
		}
	}
	return words
}

// tokenSplit splits command into words and operators, roughly as bash
// does: quoted text (single or double quotes, to the closing quote) stays
// in its word, a backslash keeps the next byte in the word, a comment
// runs to the end of its line.
func tokenSplit(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				cur.WriteString(s[i:])
				i = len(s)
				continue
			}
			cur.WriteString(s[i : i+j+2])
			i += j + 1
		case c == '#' && cur.Len() == 0:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i-- // the newline is an operator
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte(";&|(){}\n", c) >= 0:
			flush()
			if i+1 < len(s) && ((c == '&' && s[i+1] == '&') || (c == '|' && (s[i+1] == '|' || s[i+1] == '&'))) {
				out = append(out, s[i:i+2])
				i++
				continue
			}
			out = append(out, string(c))
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}
