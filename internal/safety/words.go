package safety

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// unknownVar stands in, inside script text handed to a nested analysis
// (bash -c, eval), for a part only known at run time. The nested analysis
// sees an expansion of a variable it cannot know, so the part stays
// computed; setVar refuses to track this name so a script cannot pin it.
const unknownVar = "__olly_unknown__"

// maxBraceWords caps brace expansion: more words than this and the word is
// treated as computed rather than expanded.
const maxBraceWords = 64

// field is one argument after the shell's expansions, as far as they can be
// made without running anything.
type field struct {
	value string // the text; parts only known at run time contribute ""
	src   string // the word as written
	// code is value with each unknown part replaced by ${unknownVar}, for
	// handing the text to a nested analysis.
	code    string
	dynamic bool // some part is only known at run time
	lead    bool // the field starts with such a part, so its directory is unknown
	// globAt is the index in value of the first unquoted pattern character
	// (* ? [), or -1: the field then stands for the paths it matches.
	globAt int
	// expEnd is the index in value just after the last expanded part, or -1;
	// it tells a computed command name from $HOME/bin/tool.
	expEnd    int
	fetch     bool // a substitution inside prints data from the network
	procSubst bool // the field is a process substitution <(…), a /dev/fd path
	tree      bool // stands for every path below a directory (find's {})
	// subst is the output of the command or process substitution that is
	// the whole field, when the analysis can see it (echo, printf, cat or
	// base64 -d of static text): what eval, bash -c or bash <(…) run.
	subst *string
}

func (f field) static() bool { return !f.dynamic }

// literal makes a field for text the analysis produced itself, such as the
// argument list of a script extracted from python -c.
func literal(s string) field {
	return field{value: s, src: s, code: s, globAt: -1, expEnd: -1}
}

// expandWord expands w the way the shell would, into zero or more fields:
// brace expansion, tilde, quote removal, known variables with field
// splitting, and substitutions, which are analysed on the way.
func (a *analyzer) expandWord(sc *scope, w *syntax.Word) ([]field, traits) {
	return a.appendWord(nil, sc, w)
}

// appendWord is expandWord appending to dst, with a fast path for the
// common plain word (ls, -la, build/out) that needs no expansion at all.
func (a *analyzer) appendWord(dst []field, sc *scope, w *syntax.Word) ([]field, traits) {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\*?[{~") {
			return append(dst, field{value: l.Value, src: l.Value, code: l.Value, globAt: -1, expEnd: -1}), 0
		}
	}
	src := a.text(sc, w)
	words := []*syntax.Word{w}
	if hasBraceCandidate(w) {
		cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
		if syntax.SplitBraces(cp) {
			words = words[:0]
			for bw, err := range expand.BracesSeq(nil, cp) {
				if err != nil || len(words) == maxBraceWords {
					return append(dst, field{src: src, code: "${" + unknownVar + "}", dynamic: true, lead: true, globAt: -1, expEnd: 0}), 0
				}
				words = append(words, bw)
			}
		}
	}
	out := dst
	var t traits
	for _, bw := range words {
		e := expander{a: a, sc: sc}
		e.reset()
		e.parts(bw.Parts, false, true)
		e.finish(false)
		t |= e.t
		for i := range e.fields {
			e.fields[i].src = src
		}
		out = append(out, e.fields...)
	}
	return out, t
}

// expandAssign expands the value of an assignment: no field splitting and
// no globbing, but tilde and substitutions as usual.
func (a *analyzer) expandAssign(sc *scope, w *syntax.Word) (field, traits) {
	if w == nil {
		return literal(""), 0
	}
	e := expander{a: a, sc: sc, noSplit: true}
	e.reset()
	e.parts(w.Parts, false, true)
	e.finish(true)
	f := e.fields[0]
	f.src = a.text(sc, w)
	f.globAt = -1
	return f, e.t
}

func hasBraceCandidate(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// expander builds the fields of one word.
type expander struct {
	a       *analyzer
	sc      *scope
	noSplit bool
	fields  []field
	cur     field
	vb      strings.Builder // value of cur
	cb      []byte          // code of cur
	started bool            // cur produces a field even if empty ("" or a quote)
	t       traits
}

func (e *expander) reset() {
	e.cur = field{globAt: -1, expEnd: -1}
	e.vb.Reset()
	e.cb = e.cb[:0]
	e.started = false
}

// finish ends the current field; force keeps it even when empty.
func (e *expander) finish(force bool) {
	if e.started || force || e.vb.Len() > 0 {
		e.cur.value = e.vb.String()
		e.cur.code = string(e.cb)
		e.fields = append(e.fields, e.cur)
	}
	e.reset()
}

// lit appends literal text; unquoted text may hold pattern characters.
func (e *expander) lit(s string, quoted bool) {
	if !quoted && e.cur.globAt < 0 {
		if i := strings.IndexAny(s, "*?["); i >= 0 {
			e.cur.globAt = e.vb.Len() + i
		}
	}
	e.vb.WriteString(s)
	e.cb = append(e.cb, s...)
	e.started = true
	e.cur.subst = nil
}

// known appends the value of an expansion the analysis could resolve.
// Unquoted, it is split on IFS and may glob, as the shell would do.
func (e *expander) known(v value, quoted bool) {
	if v.dynamic {
		e.partial(v)
		return
	}
	if quoted || e.noSplit {
		e.appendExpanded(v.text, v.pattern && !e.noSplit)
		return
	}
	if !e.sc.ifsKnown {
		e.unknown()
		return
	}
	parts := strings.FieldsFunc(v.text, func(r rune) bool { return strings.ContainsRune(e.sc.ifs, r) })
	if len(parts) > 0 && strings.ContainsRune(e.sc.ifs, rune(v.text[0])) {
		e.finish(false)
	}
	for i, p := range parts {
		if i > 0 {
			e.finish(false)
		}
		e.appendExpanded(p, v.pattern || strings.ContainsAny(p, "*?["))
	}
	if len(parts) > 0 && strings.ContainsRune(e.sc.ifs, rune(v.text[len(v.text)-1])) {
		e.finish(false)
	}
}

func (e *expander) appendExpanded(s string, glob bool) {
	if glob && e.cur.globAt < 0 {
		if i := strings.IndexAny(s, "*?["); i >= 0 {
			e.cur.globAt = e.vb.Len() + i
		} else {
			e.cur.globAt = e.vb.Len()
		}
	}
	e.vb.WriteString(s)
	e.cb = append(e.cb, s...)
	e.cur.expEnd = e.vb.Len()
	e.started = true
	e.cur.subst = nil
}

// unknown records a part only known at run time.
func (e *expander) unknown() {
	if e.vb.Len() == 0 && !e.cur.dynamic {
		e.cur.lead = true
	}
	e.cur.dynamic = true
	e.cur.expEnd = e.vb.Len()
	e.cb = append(e.cb, "${"+unknownVar+"}"...)
	e.started = true
	e.cur.subst = nil
}

// partial appends a variable that is only partly known: its text as if the
// computed part were empty, the field marked computed.
func (e *expander) partial(v value) {
	if v.lead && e.vb.Len() == 0 && !e.cur.dynamic {
		e.cur.lead = true
	}
	e.cur.dynamic = true
	e.vb.WriteString(v.text)
	e.cb = append(e.cb, "${"+unknownVar+"}"...)
	e.cur.expEnd = e.vb.Len()
	e.started = true
}

func (e *expander) parts(ps []syntax.WordPart, quoted, first bool) {
	for i, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				e.lit(unescapeDouble(p.Value), true)
			} else if i == 0 && first && strings.HasPrefix(p.Value, "~") {
				e.tilde(p.Value)
			} else if j := assignTilde(p.Value); i == 0 && first && j > 0 {
				// bash expands ~ after the = of a word that looks like an
				// assignment, also as an argument: dd of=~/x writes ~/x.
				e.unquotedLit(p.Value[:j])
				e.tilde(p.Value[j:])
			} else {
				e.unquotedLit(p.Value)
			}
		case *syntax.SglQuoted:
			s := p.Value
			if p.Dollar {
				s = ansiC(s)
			}
			e.lit(s, true)
		case *syntax.DblQuoted:
			e.started = true
			e.parts(p.Parts, true, false)
			if p.Dollar {
				e.unknown() // $"…": bash translates it, and expands the translation
			}
		case *syntax.ParamExp:
			e.param(p, quoted)
		case *syntax.CmdSubst:
			whole := e.vb.Len() == 0 && !e.cur.dynamic
			out, t := e.a.substOutput(e.sc, p.Stmts)
			e.t |= t
			if e.t&tFetch != 0 {
				e.cur.fetch = true
			}
			e.unknown()
			if whole {
				e.cur.subst = out
			}
		case *syntax.ProcSubst:
			out, t := e.a.substOutput(e.sc, p.Stmts)
			e.t |= t
			e.cur.fetch = e.cur.fetch || t&tFetch != 0
			e.cur.procSubst = true
			e.appendExpanded("/dev/fd/63", false)
			e.cur.subst = out
		case *syntax.ArithmExp:
			e.t |= e.a.scan(e.sc, p)
			e.unknown()
		case *syntax.ExtGlob:
			e.lit(p.Op.String()+p.Pattern.Value+")", quoted)
		default:
			e.t |= e.a.scan(e.sc, p)
			e.unknown()
		}
	}
}

// unquotedLit removes backslash quoting; escaped characters never glob.
func (e *expander) unquotedLit(s string) {
	for s != "" {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			e.lit(s, false)
			return
		}
		e.lit(s[:i], false)
		if i+1 < len(s) {
			e.lit(s[i+1:i+2], true)
			s = s[i+2:]
		} else {
			s = ""
		}
	}
}

// tilde expands ~ and ~user at the start of a word.
func (e *expander) tilde(s string) {
	name, rest, _ := strings.Cut(s, "/")
	hadSlash := len(name) < len(s)
	var dir string
	switch name {
	case "~":
		dir = e.a.home(e.sc)
	case "~+":
		dir = e.sc.cwd
	case "~-":
	default:
		user := name[1:]
		if !validName(user, true) {
			e.unquotedLit(s)
			return
		}
		// Other users' homes live here on Linux; the exact place does not
		// matter, only that it is someone's home directory.
		dir = "/home/" + user
		if user == "root" {
			dir = "/root"
		}
	}
	if dir == "" {
		e.unknown()
	} else {
		e.appendExpanded(dir, false)
	}
	if hadSlash {
		e.lit("/", true)
		e.unquotedLit(rest)
	}
}

// substOutput analyses the statements of a command or process
// substitution in a subshell and returns their output when it is static
// text the analysis can see (echo, printf, cat or base64 -d of known text).
func (a *analyzer) substOutput(sc *scope, stmts []*syntax.Stmt) (*string, traits) {
	if len(stmts) != 1 {
		return nil, a.walkStmts(sc.clone(), stmts, nil)
	}
	io := &pipeIO{}
	t := a.walkStmts(sc.clone(), stmts, io)
	return io.out, t
}

// assignTilde returns the index of the ~ right after the = of a word
// shaped like an assignment (NAME=~…), or 0.
func assignTilde(s string) int {
	i := strings.IndexByte(s, '=')
	if i <= 0 || i+1 >= len(s) || s[i+1] != '~' || !validName(s[:i], false) {
		return 0
	}
	return i + 1
}
