package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Checked is everything olly decides about one command before it runs,
// from a single parse: the verdict Analyze gives, what ReadOnly answers,
// and what the session's shell needs to know (ShellFacts).
type Checked struct {
	// Command is the command these answers are about; a caller that runs
	// something else (a person edited it) must check that again.
	Command string
	Verdict Verdict
	// ReadOnly and Why are ReadOnly's answer: Why says why not.
	ReadOnly bool
	Why      string
	ShellFacts
}

// ShellFacts are what the session's shell needs to know about a command
// before it runs it, from the same parse as the rest of Check.
type ShellFacts struct {
	// Noexec is SetsNoexec's answer.
	Noexec bool
	// Stateless: the command cannot change what the session's bash saves
	// (stateless.go), provided none of Names, its distinct command names
	// (at most MaxStatelessNames), is a function or an alias of the
	// session, which bash checks just before it runs the command.
	Stateless bool
	Names     []string
}

// Facts parses command once and returns its ShellFacts, as Check would
// (for a caller of the shell that made no Check of the command).
func Facts(command string) ShellFacts {
	f, err := parse(command)
	return factsParsed(command, f, err)
}

func factsParsed(command string, f *syntax.File, err error) ShellFacts {
	sf := ShellFacts{Noexec: noexecParsed(f, err)}
	sf.Stateless, sf.Names = statelessParsed(command, f, err)
	return sf
}

// Check parses command once and returns Analyze's verdict, ReadOnly's
// answer and the shell's facts (SetsNoexec's answer and whether the
// command is stateless), exactly as each would give them alone (the
// terminal tool checks every command the model runs, and each of the three
// parsing it again cost as much as its own rules).
func Check(command string, opts Options) Checked {
	f, err := parse(command)
	c := Checked{Command: command, Verdict: analyzeParsed(command, f, err, opts), ShellFacts: factsParsed(command, f, err)}
	c.ReadOnly, c.Why = readOnlyParsed(command, f, err, opts)
	return c
}

// SetsNoexec reports whether command may switch on noexec (set -n, set -o
// noexec, shopt -so noexec), after which bash reads and runs nothing more,
// so that the session's shell runs it in a subshell. It is true when any
// simple command of it, wherever it stands (in a list, a function, a
// subshell, a command substitution), is set, with an n among its option
// letters or -o noexec before its first operand or "--", or a computed
// option word; or shopt with -s, -o and noexec. The words are read as bash
// reads them, so "set" -n and s\et -n count, and echo "set -n" does not; a
// command the parser cannot read counts too (bash may run part of it). Text
// run by eval or bash -c is not looked into: eval "set -n" times out, and
// the next command gets a new bash.
func SetsNoexec(command string) bool {
	f, err := parse(command)
	return noexecParsed(f, err)
}

// noexecParsed is SetsNoexec on a command as parse read it (f, or err).
func noexecParsed(f *syntax.File, err error) bool {
	if err != nil {
		return true
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && !found {
			found = callSetsNoexec(ce.Args)
		}
		return !found
	})
	return found
}

// callSetsNoexec judges one simple command's words.
func callSetsNoexec(args []*syntax.Word) bool {
	for len(args) > 0 {
		name, _ := roStatic(args[0])
		if name != "builtin" && name != "command" {
			break
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return false
	}
	switch name, _ := roStatic(args[0]); name {
	case "set":
		return setArgsNoexec(args[1:])
	case "shopt":
		return shoptArgsNoexec(args[1:])
	}
	return false
}

func setArgsNoexec(args []*syntax.Word) bool {
	for k := 0; k < len(args); k++ {
		a, static := roStatic(args[k])
		switch {
		case !static:
			// -$x may hold an n; "$x" is an operand.
			// (A computed word has a part: roStatic.)
			lead, ok := args[k].Parts[0].(*syntax.Lit)
			return ok && strings.HasPrefix(lead.Value, "-")
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-"):
			return false // what follows are positional parameters
		case a == "-o":
			if k+1 < len(args) {
				if v, _ := roStatic(args[k+1]); v == "noexec" {
					return true
				}
			}
			k++
		case isOptionGroup(a[1:]) && strings.Contains(a, "n"):
			return true
		}
	}
	return false
}

func shoptArgsNoexec(args []*syntax.Word) bool {
	var set, o, name bool
	for _, w := range args {
		a, _ := roStatic(w)
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
