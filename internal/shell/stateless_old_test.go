package shell

import (
	"slices"
	"strings"
)

// The hand lexer stateless.go used before safety's parse decided
// (oldMayChangeState, as it was at f4dee0f), kept for the differential
// fuzz target FuzzStatelessAgainstTheOldLexer.

// oldHarmless change nothing bash saves (printf only without -v).
var oldHarmless = map[string]bool{
	"echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true, "pwd": true, ":": true,
}

// oldShellWords are bash's reserved words and builtins: a command that uses
// one as a command name (other than the harmless ones) may change the
// shell.
var oldShellWords = strings.Fields(`! [[ ]] { } case coproc do done elif else esac fi for function if in
select then time until while . : alias bg bind break builtin caller cd command compgen complete
compopt continue declare dirs disown enable eval exec exit export fc fg getopts hash help history
jobs kill let local logout mapfile popd pushd read readarray readonly return set shift shopt source
suspend times trap type typeset ulimit umask unalias unset wait`)

// oldMaxNames bounds the distinct command names of a command found
// stateless: bash checks each with declare -F, and a command with more is
// simply saved (a huge generated command must not cost a scan per name).
const oldMaxNames = 64

// oldMayChangeState reports whether command could change what bash saves
// (variables, functions, aliases, the directory); if not, names are its
// command names (at most oldMaxNames), which bash must still find
// to be no function or alias of the session (those may change anything).
func oldMayChangeState(command string) (change bool, names []string) {
	// Expansions that assign or run code in this shell (${x:=…},
	// $((x++)), $[x++], ((…)); $(…) is a subshell but may hide the rest from this
	// simple scan), grouping, here-documents.
	// $[…] is the old spelling of $((…)): $[x=1] assigns.
	if strings.ContainsAny(command, "`(){}") || strings.Contains(command, "${") || strings.Contains(command, "$[") || strings.Contains(command, "<<") {
		return true, nil
	}
	atStart, cmd := true, ""
	for _, w := range oldSplitWords(command) {
		switch {
		case w == "":
			return true, nil // an unterminated quote, an escape, a comment
		case oldIsOperator(w):
			atStart = true
			continue
		case !atStart:
			if cmd == "printf" && oldMayBeOption(w) {
				return true, nil // printf -v NAME assigns
			}
			continue
		}
		atStart, cmd = false, w
		if !oldIsPlainName(w) || (oldIsShellWord(w) && !oldHarmless[w]) {
			return true, nil
		}
		if !slices.Contains(names, w) {
			if len(names) == oldMaxNames {
				return true, nil
			}
			names = append(names, w)
		}
	}
	return false, names
}

// oldMayBeOption reports whether an argument word of printf could be an
// option once bash has expanded it (-v NAME assigns): judged after quote
// removal ("-v", -"v" are -v), and any expansion or pattern ($x, -[v])
// counts as one, as this scan cannot know what it becomes.
func oldMayBeOption(w string) bool {
	if strings.ContainsAny(w, "$*?[~") {
		return true
	}
	return strings.HasPrefix(oldUnquote(w), "-")
}

// unquote removes the quotes of a word oldSplitWords returned (its quotes
// are balanced, and no backslash is in it).
func oldUnquote(w string) string {
	var b strings.Builder
	var q byte
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case c == q:
			q = 0
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func oldIsShellWord(w string) bool {
	for _, s := range oldShellWords {
		if s == w {
			return true
		}
	}
	return false
}

// oldIsPlainName reports whether w is a literal command name: no quotes, no
// expansion, no assignment, no redirection.
func oldIsPlainName(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./+:@%,-[", c) >= 0) {
			return false
		}
	}
	return w != ""
}

func oldIsOperator(w string) bool {
	switch w {
	case "|", "||", "&&", ";", "&", "\n", "|&":
		return true
	}
	return false
}

// oldSplitWords splits a command into words and control operators (a
// redirection stays part of a word, which then is no plain name). What
// this scan cannot follow yields an empty word: an unterminated quote, a
// backslash outside single quotes (it could escape a quote or an
// operator), a '#' outside quotes (a comment hides the rest).
func oldSplitWords(s string) []string {
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
		case c == '\\' || c == '#':
			return append(out, "")
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 || (c == '"' && strings.IndexByte(s[i+1:i+1+j], '\\') >= 0) {
				return append(out, "")
			}
			cur.WriteString(s[i : i+j+2])
			i += j + 1
		case c == ' ' || c == '\t':
			flush()
		case c == '\n' || c == ';':
			flush()
			out = append(out, string(c))
		case c == '|' || c == '&':
			if i+1 < len(s) && (s[i+1] == c || (c == '|' && s[i+1] == '&')) {
				flush()
				out = append(out, s[i:i+2])
				i++
				continue
			}
			if c == '&' && cur.Len() > 0 && strings.ContainsAny(cur.String()[cur.Len()-1:], "<>") {
				cur.WriteByte(c) // >&2, <&0: part of a redirection
				continue
			}
			flush()
			out = append(out, string(c))
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}
