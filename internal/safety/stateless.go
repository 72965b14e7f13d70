package safety

import (
	"cmp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Stateless commands. Saving the session's state after a command
// (declare -p of every variable, every function and alias) is most of
// what a command costs the session's long-lived bash, so internal/shell
// skips the save, and the option and trap reset, after a command found
// here to be unable to change that state: on the syntax tree of the one
// parse Check makes, nothing but simple commands with literal names that
// are programs or harmless builtins, joined by ; newlines && || | |& and
// &, with arguments and redirections that neither assign nor run code in
// the shell. bash then checks, just before it runs the command, that none
// of its names is a function or an alias of the session (those may change
// anything); Names are those names. Everything not listed here as allowed
// is stateful, and so is input the parser cannot read. docs/shell.md
// lists the rule construct by construct.

// MaxStatelessNames bounds the distinct command names of a command found
// stateless: bash checks each with declare -F, and a command with more is
// simply saved (a huge generated command must not cost a scan per name).
const MaxStatelessNames = 64

// harmlessBuiltins are the builtins that change nothing bash saves, given
// the checks of their arguments below (printf without -v, test without -v).
var harmlessBuiltins = map[string]bool{
	"echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true, "pwd": true, ":": true,
}

// shellWords are bash's builtins and reserved words: a command that uses
// one as its name (other than the harmless ones) may change the shell.
// (The parser turns most reserved words, and declare, export, local, let,
// readonly and typeset, into other nodes than simple commands already.)
var shellWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`! [[ ]] { } case coproc do done elif else esac fi for function if in
select then time until while . : alias bg bind break builtin caller cd command compgen complete
compopt continue declare dirs disown enable eval exec exit export fc fg getopts hash help history
jobs kill let local logout mapfile popd pushd read readarray readonly return set shift shopt source
suspend times trap type typeset ulimit umask unalias unset wait`) {
		m[w] = true
	}
	return m
}()

// statelessParsed reports whether command, as parse read it (f, or err),
// can change nothing the session's bash saves, and if so its distinct
// command names (at most MaxStatelessNames).
func statelessParsed(command string, f *syntax.File, err error) (bool, []string) {
	if err != nil {
		return false, nil
	}
	sc := statelessScan{spans: strings.IndexByte(command, '#') >= 0}
	for _, st := range f.Stmts {
		if !sc.stmt(st) {
			return false, nil
		}
	}
	if sc.spans && !hashesInWords(command, sc.words) {
		return false, nil // a comment: the parser dropped it, see hashesInWords
	}
	return true, sc.names
}

// statelessScan walks one command's statements.
type statelessScan struct {
	names []string
	spans bool      // collect the words' extents (the command has a '#')
	words [][2]uint // their [start, end) offsets, when spans
}

// stmt judges one statement: a simple command, or two statements joined
// by && || | |& (a list's ; newline and & separate the File's statements).
// Negation (!) and mksh/zsh forms are stateful.
func (sc *statelessScan) stmt(st *syntax.Stmt) bool {
	if st.Negated || st.Coprocess || st.Disown {
		return false
	}
	for _, r := range st.Redirs {
		if !sc.redirect(r) {
			return false
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return sc.call(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			return sc.stmt(c.X) && sc.stmt(c.Y)
		}
	}
	// No command (a redirection alone), or any compound command: (…),
	// {…}, if, for, while, until, case, select, [[…]], ((…)), let,
	// declare and its kin, time, coproc, a function declaration.
	return false
}

// redirect allows the redirections bash undoes after the simple command:
// to and from files and descriptors, with a plain descriptor number. A
// {name}> redirection assigns name; here-documents and here-strings are
// stateful (their bodies are expanded, and the parsers' handling of
// them is where bash and others differ most).
func (sc *statelessScan) redirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.DplOut,
		syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
	default:
		return false
	}
	if r.Hdoc != nil || (r.N != nil && !roDigits(r.N.Value)) {
		return false
	}
	return sc.word(r.Word)
}

// call judges a simple command: no assignments (even a prefix A=1 cmd,
// which persists when cmd is a special builtin or a function), a literal
// name that is a program or a harmless builtin, and words that neither
// assign nor run code; printf and test get their own argument checks.
func (sc *statelessScan) call(c *syntax.CallExpr) bool {
	if len(c.Assigns) > 0 || len(c.Args) == 0 {
		return false
	}
	name, ok := roStatic(c.Args[0])
	if !ok || !PlainCommandName(name) || (shellWords[name] && !harmlessBuiltins[name]) {
		return false
	}
	if !slices.Contains(sc.names, name) {
		if len(sc.names) == MaxStatelessNames {
			return false
		}
		sc.names = append(sc.names, name)
	}
	for _, w := range c.Args {
		if !sc.word(w) {
			return false
		}
	}
	switch name {
	case "printf":
		return printfArgsSafe(c.Args[1:])
	case "test", "[":
		return testArgsSafe(c.Args[1:])
	}
	return true
}

// word allows literal text, quotes, and the special parameters ($? $! $#
// $$ $@ $* $- $0…$9, unbraced): no command or process substitution, no
// arithmetic ($((…)), $[…]: may assign), no ${…} (${x:=} assigns, ${!x}
// and ${a[i]} evaluate subscripts), and no named $x either: a session's
// nameref (declare -n x='a[i++]') makes even $x assign.
func (sc *statelessScan) word(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		if !plainPart(p) {
			return false
		}
	}
	if sc.spans {
		sc.words = append(sc.words, [2]uint{w.Pos().Offset(), w.End().Offset()})
	}
	return true
}

func plainPart(p syntax.WordPart) bool {
	switch x := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
		return true
	case *syntax.DblQuoted:
		if x.Dollar {
			return false // $"…" is translated, and the translation expanded
		}
		for _, q := range x.Parts {
			if !plainPart(q) {
				return false
			}
		}
		return true
	case *syntax.ParamExp:
		return x.Short && x.Param != nil && len(x.Param.Value) == 1 && strings.Contains("?!#$@*-0123456789", x.Param.Value) &&
			x.Index == nil && x.Exp == nil && x.Repl == nil && x.Slice == nil && !x.Excl && !x.Length
	}
	return false // CmdSubst, ArithmExp, ProcSubst, ExtGlob, …
}

// printfArgsSafe: printf -v NAME assigns, so no argument may be an option
// once bash has expanded it: each is static after quote removal ("-v" and
// -"v" are -v), none starts with '-', and none has a pattern, a brace
// expansion or a tilde that could become one (-[v], [-]v, {-v,}, ~-).
func printfArgsSafe(args []*syntax.Word) bool {
	for _, w := range args {
		v, ok := fixedArg(w)
		if !ok || strings.HasPrefix(v, "-") {
			return false
		}
	}
	return true
}

// testArgsSafe: test -v evaluates a subscript (test -v 'a[TMOUT=1]'
// assigns, 'a[$(cmd)]' runs cmd; a nameref does the same to a plain name),
// so no argument may be -v, or become it (-R is refused too): each static,
// as for printf.
func testArgsSafe(args []*syntax.Word) bool {
	for _, w := range args {
		v, ok := fixedArg(w)
		if !ok || v == "-v" || v == "-R" {
			return false
		}
	}
	return true
}

// fixedArg returns w's value after quote removal when it is one word
// whatever the shell's state: static, and no unquoted pattern character,
// brace or tilde.
func fixedArg(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[{~") {
			return "", false
		}
	}
	return roStatic(w)
}

// PlainCommandName reports whether name (after quote removal) is a
// command name bash looks up as it stands, that olly may hand to bash's
// function and alias check: no pattern, brace, tilde, expansion,
// assignment, redirection, quote or space. That alone does not keep the
// check from running code: in an indexed array's subscript even a plain
// name is arithmetic, and evaluates the variable of that name (ls='a[$(…)]'),
// so the driver asks BASH_ALIASES only while it is bash's own associative
// array, not a nameref (driver.bash's __olly_begin; else it saves).
func PlainCommandName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./+:@%,-[", c) >= 0) {
			return false
		}
	}
	return name != ""
}

// hashesInWords reports whether every '#' of command lies inside one of
// the words (a#b, '#', $#). The parser drops comments (KeepComments is
// off), and in a command of simple commands only a comment holds a '#'
// outside every word: such a command is judged stateful, as the old scan
// did, so that no text bash might read differently is hidden in one.
func hashesInWords(command string, words [][2]uint) bool {
	slices.SortFunc(words, func(a, b [2]uint) int { return cmp.Compare(a[0], b[0]) })
	k := 0
	for i := 0; i < len(command); i++ {
		if command[i] != '#' {
			continue
		}
		for k < len(words) && words[k][1] <= uint(i) {
			k++ // words are apart: one that ends before i ends before every later '#'
		}
		if k == len(words) || uint(i) < words[k][0] {
			return false
		}
	}
	return true
}
