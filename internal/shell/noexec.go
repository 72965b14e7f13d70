package shell

import "strings"

// A command that switches on noexec (set -n, set -o noexec, shopt -so
// noexec) makes the session's bash read and execute nothing more, olly's
// own loop included, so it would hang until its timeout and then cost the
// session its bash. Such a command is found here, statically, and run in
// a subshell: the noexec ends with it. (One that hides it, eval "set -n",
// is not found: it times out, and the next command gets a new bash.)

// noexecNote tells the model why the command's cd and variables were not
// kept.
const noexecNote = "the command switches on noexec (set -n), which would stop the session's shell from running anything more, so it ran in a subshell: its cd, variables, functions and aliases do not carry over"

// runInSubshell wraps command so that it runs in a subshell of the
// session's bash (on lines of their own, so a trailing comment or a
// here-document stays whole).
func runInSubshell(command string) string { return "(\n" + command + "\n)" }

// setsNoexec reports whether command, as written, runs set or shopt so
// that noexec is switched on: a set whose options (before "--" or the
// first non-option) include n, or -o noexec; a shopt with -s and -o and
// the name noexec. Quoted text is one word, so echo "set -n" is not it.
func setsNoexec(command string) bool {
	words := shellTokens(command)
	for i := 0; i < len(words); i++ {
		if !commandPosition(words, i) {
			continue
		}
		j := i
		for j < len(words) && (words[j] == "builtin" || words[j] == "command") {
			j++
		}
		if j >= len(words) {
			return false
		}
		args := wordsUntilOperator(words[j+1:])
		switch words[j] {
		case "set":
			if setArgsNoexec(args) {
				return true
			}
		case "shopt":
			if shoptArgsNoexec(args) {
				return true
			}
		}
	}
	return false
}

func setArgsNoexec(args []string) bool {
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

func shoptArgsNoexec(args []string) bool {
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

// isOptionGroup reports whether s is letters only (set -euo, set -n).
func isOptionGroup(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// commandPosition reports whether words[i] starts a simple command:
// the first word, or one after a control operator, a group, or a
// reserved word that a command follows.
func commandPosition(words []string, i int) bool {
	if i == 0 {
		return true
	}
	switch words[i-1] {
	case ";", "&", "&&", "||", "|", "|&", "\n", "(", ")", "{", "}", "!", "then", "do", "else", "elif", "if", "while", "until", "time":
		return true
	}
	return false
}

func wordsUntilOperator(words []string) []string {
	for k, w := range words {
		switch w {
		case ";", "&", "&&", "||", "|", "|&", "\n", "(", ")", "{", "}":
			return words[:k]
		}
	}
	return words
}

// shellTokens splits command into words and operators, roughly as bash
// does: quoted text (single or double quotes, to the closing quote) stays
// in its word, a backslash keeps the next byte in the word, a comment
// runs to the end of its line.
func shellTokens(s string) []string {
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
