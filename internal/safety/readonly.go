package safety

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnly reports whether command only reads, so that olly may run it
// without asking (and review mode may run it at all). It is true only when
// every simple command the shell would run — in pipelines, lists,
// subshells and command substitutions — is on a short list of read-only
// programs (ls, cat, grep, rg, find without -exec or -delete, git status,
// log, diff, show, …), takes no option that writes or runs something else,
// names no file outside opts' roots and allowed directories, and no output
// is redirected anywhere but /dev/null. Anything it cannot read statically
// (a computed command name or file name, a loop, a function, an
// assignment) is not read-only. reason says why not, for a person.
//
// Like Analyze it reads nothing from the file system: a relative path is
// judged by its text, so a symbolic link inside the workspace that points
// outside is not seen (the file tools, not commands, enforce that boundary).
// A bare name runs whatever PATH and the session's shell functions make it;
// olly trusts those, since changing them takes an approved command.
func ReadOnly(command string, opts Options) (ok bool, reason string) {
	f, err := parse(command)
	return readOnlyParsed(command, f, err, opts)
}

// readOnlyParsed is ReadOnly on command as parse read it (f, or err).
func readOnlyParsed(command string, f *syntax.File, err error, opts Options) (ok bool, reason string) {
	if strings.TrimSpace(command) == "" {
		return false, "the command is empty"
	}
	if err != nil {
		var rb *rawByteError
		if errors.As(err, &rb) {
			return false, rb.what
		}
		return false, "the shell cannot parse it"
	}
	c := roChecker{opts: roClean(opts)}
	if why := c.stmts(f.Stmts, 0); why != "" {
		return false, why
	}
	return true, ""
}

// roMaxDepth bounds nested command substitutions.
const roMaxDepth = 8

type roChecker struct{ opts Options }

// roClean is cleanOptions, with no stand-in for an unknown home: nothing
// under it is inside.
func roClean(o Options) Options {
	if o = cleanOptions(o); o.Home == unknownHome {
		o.Home = ""
	}
	return o
}

func (c roChecker) stmts(list []*syntax.Stmt, depth int) string {
	if depth > roMaxDepth {
		return "command substitutions are nested too deeply"
	}
	for _, s := range list {
		if why := c.stmt(s, depth); why != "" {
			return why
		}
	}
	return ""
}

func (c roChecker) stmt(s *syntax.Stmt, depth int) string {
	if s == nil {
		return ""
	}
	if s.Background || s.Coprocess {
		return "it starts a background job"
	}
	for _, r := range s.Redirs {
		if why := c.redirect(r, depth); why != "" {
			return why
		}
	}
	switch x := s.Cmd.(type) {
	case nil:
		return ""
	case *syntax.CallExpr:
		return c.call(x, depth)
	case *syntax.BinaryCmd:
		if why := c.stmt(x.X, depth); why != "" {
			return why
		}
		return c.stmt(x.Y, depth)
	case *syntax.Subshell:
		return c.stmts(x.Stmts, depth)
	case *syntax.Block:
		return c.stmts(x.Stmts, depth)
	case *syntax.TimeClause:
		return c.stmt(x.Stmt, depth)
	case *syntax.TestClause:
		return c.expansions(x, depth)
	default:
		return "it uses shell control flow, functions or assignments, which olly does not treat as read-only"
	}
}

// redirect allows reading redirections and output to /dev/null only.
func (c roChecker) redirect(r *syntax.Redirect, depth int) string {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		return "a redirection assigns a variable"
	}
	if why := c.expansions(r.Word, depth); why != "" {
		return why
	}
	if why := c.expansions(r.Hdoc, depth); why != "" {
		return why
	}
	target, static := roStatic(r.Word)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return ""
	case syntax.RdrIn:
		if !static || !c.inside(target) {
			return fmt.Sprintf("it reads %s, outside the workspace or computed", roShow(r.Word))
		}
		return ""
	case syntax.DplIn, syntax.DplOut:
		if static && (target == "-" || roDigits(target)) {
			return ""
		}
		if r.Op == syntax.DplIn {
			return "it duplicates a computed file descriptor"
		}
	case syntax.RdrInOut:
		return "it opens a file for writing (<>)"
	}
	if static && target == "/dev/null" {
		return ""
	}
	return fmt.Sprintf("it redirects output to %s", roShow(r.Word))
}

// expansions checks the substitutions inside node: command and process
// substitutions must be read-only themselves, arithmetic (which can
// assign) and assigning parameter expansions are refused.
func (c roChecker) expansions(node syntax.Node, depth int) string {
	if node == nil {
		return ""
	}
	if w, ok := node.(*syntax.Word); ok && (w == nil || plainWord(w)) {
		return ""
	}
	var why string
	syntax.Walk(node, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst:
			why = c.stmts(x.Stmts, depth+1)
			return false
		case *syntax.ProcSubst:
			why = c.stmts(x.Stmts, depth+1)
			return false
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			why = "it uses arithmetic, which can assign variables"
			return false
		case *syntax.ParamExp:
			why = roParam(x)
		case *syntax.DblQuoted:
			if x.Dollar {
				why = `it has a $"…" string, which bash translates through a message catalogue the session may name`
			}
		}
		return true
	})
	return why
}

// plainWord reports whether w is literals and single quotes only, which
// expand nothing.
func plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

func roParam(p *syntax.ParamExp) string {
	if p.Index != nil || p.Slice != nil {
		return "it indexes or slices a variable, which can assign through arithmetic"
	}
	if p.Exp == nil {
		return ""
	}
	switch p.Exp.Op {
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		return "it assigns a variable (${name:=…})"
	case syntax.OtherParamOps:
		return "it uses a ${name@…} transformation, which can run commands"
	}
	return ""
}

// call checks one simple command.
func (c roChecker) call(ce *syntax.CallExpr, depth int) string {
	if len(ce.Assigns) > 0 {
		return "it sets variables"
	}
	if len(ce.Args) == 0 {
		return ""
	}
	for _, w := range ce.Args {
		if why := c.expansions(w, depth); why != "" {
			return why
		}
	}
	name, ok := roStatic(ce.Args[0])
	if !ok {
		return "the command name is computed"
	}
	name, ok = roProgram(name)
	if !ok {
		return fmt.Sprintf("%s is not a standard program path", roShow(ce.Args[0]))
	}
	rule, known := roRuleFor(name)
	if !known {
		return fmt.Sprintf("%s is not on the read-only list", name)
	}
	args := make([]string, 0, len(ce.Args)-1)
	for _, w := range ce.Args[1:] {
		v, static := roStatic(w)
		if !static {
			if rule.noPaths {
				v = ""
			} else {
				return fmt.Sprintf("%s's argument %s is computed, so what it reads is unknown", name, roShow(w))
			}
		}
		args = append(args, v)
	}
	if rule.check != nil {
		if why := rule.check(c, args); why != "" {
			return name + " " + why
		}
	}
	if rule.noPaths || rule.ownPaths {
		return ""
	}
	return c.operands(name, args, rule.patternFirst)
}

// operands checks the file names among args: every operand, and the value
// of --opt=value, must lie inside the workspace. With patternFirst the first
// operand is a pattern, not a file (grep, rg, jq), unless -e or -f gave it.
func (c roChecker) operands(name string, args []string, patternFirst bool) string {
	skip := patternFirst
	for _, a := range args {
		if a == "-e" || a == "-f" || strings.HasPrefix(a, "--regexp") || strings.HasPrefix(a, "--file") {
			skip = false
		}
	}
	opts := true
	for _, a := range args {
		switch {
		case opts && a == "--":
			opts = false
			continue
		case opts && strings.HasPrefix(a, "-") && a != "-":
			if v, ok := roOptionPath(a); ok && !c.inside(v) {
				return fmt.Sprintf("%s reads %s, outside the workspace", name, strconv.Quote(v))
			}
			continue
		}
		if skip {
			skip = false
			continue
		}
		if !c.inside(a) {
			return fmt.Sprintf("%s reads %s, outside the workspace", name, strconv.Quote(a))
		}
	}
	return ""
}

// roOptionPath returns the file name an option may carry: the value of
// --opt=value, or what follows a short option letter ("-f/etc/x") when it
// looks like a path. Being generous here only makes olly ask more.
func roOptionPath(a string) (string, bool) {
	if strings.HasPrefix(a, "--") {
		_, v, ok := strings.Cut(a, "=")
		return v, ok
	}
	if len(a) > 2 && strings.ContainsAny(a, "/~.") {
		if i := strings.IndexAny(a, "/~"); i > 2 {
			return a[i:], true // "-rf/etc": the path starts at the slash
		}
		return a[2:], true
	}
	return "", false
}

// inside reports whether the path p, as written, stays inside a root or an
// allowed directory. Paths that do not climb ("src/*.go") stay in the
// working directory.
// ownRepo reports whether p, a -C or --work-tree directory (gitDir false)
// or a --git-dir (gitDir true), is the workspace's own repository: a
// workspace root, or a root's .git folder. Anything else may be a
// repository the model planted, whose config git obeys.
func (c roChecker) ownRepo(p string, gitDir bool) bool {
	abs := c.abs(p)
	if abs == "" {
		return false
	}
	for _, r := range c.opts.Roots {
		if gitDir && abs == filepath.Join(r, ".git") || !gitDir && abs == r {
			return true
		}
	}
	return false
}

// abs resolves p like the shell would (~, relative to Cwd), or "".
func (c roChecker) abs(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if c.opts.Home == "" {
			return ""
		}
		return filepath.Join(c.opts.Home, p[1:])
	case strings.HasPrefix(p, "~"):
		return ""
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case c.opts.Cwd == "":
		return ""
	}
	return filepath.Join(c.opts.Cwd, p)
}

func (c roChecker) inside(p string) bool {
	switch p {
	case "", "-", "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	var abs string
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if c.opts.Home == "" {
			return false
		}
		abs = filepath.Join(c.opts.Home, p[1:])
	case strings.HasPrefix(p, "~"):
		return false // ~user
	case filepath.IsAbs(p):
		abs = filepath.Clean(p)
	default:
		if c.opts.Cwd == "" {
			return false
		}
		abs = filepath.Join(c.opts.Cwd, p)
	}
	for _, dirs := range [][]string{c.opts.Roots, c.opts.Allowed} {
		for _, d := range dirs {
			if abs == d || strings.HasPrefix(abs, d+string(filepath.Separator)) || d == string(filepath.Separator) {
				return true
			}
		}
	}
	return false
}

// roProgram maps a command name to the program it names: a bare name, or
// an absolute path in a standard bin directory. "./ls" is a local file and
// never matches.
func roProgram(name string) (string, bool) {
	if !strings.ContainsRune(name, '/') {
		return name, name != ""
	}
	switch filepath.Dir(name) {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin":
		return filepath.Base(name), true
	}
	return "", false
}

// roStatic returns the value of a word whose text is fixed: literals and
// quotes, without expansions. Unquoted backslashes are removed.
func roStatic(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 { // most words: their text, with no copy
		switch x := w.Parts[0].(type) {
		case *syntax.Lit:
			return roUnescape(x.Value, false), true
		case *syntax.SglQuoted:
			if !x.Dollar {
				return x.Value, true
			}
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(roUnescape(x.Value, false))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false // $"…": bash translates it (a message catalogue may hold anything)
			}
			for _, p := range x.Parts {
				l, ok := p.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(roUnescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// roUnescape removes the backslashes bash removes: any outside quotes,
// and before $ ` " \ and newline inside double quotes.
func roUnescape(s string, dquoted bool) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!dquoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func roDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// roShow quotes a word for a reason, shortened.
func roShow(w *syntax.Word) string {
	if w == nil {
		return "nothing"
	}
	v, ok := roStatic(w)
	if !ok {
		var b strings.Builder
		if err := syntax.NewPrinter().Print(&b, w); err != nil {
			return "a computed word"
		}
		v = b.String()
	}
	if len(v) > 80 {
		v = strings.ToValidUTF8(v[:80], "") + "…"
	}
	return strconv.Quote(v)
}
