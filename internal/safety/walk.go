package safety

import (
	"mvdan.cc/sh/v3/syntax"
)

// maxLoopItems is how many static items of a for loop are analysed one by
// one with the loop variable bound; longer lists leave it unknown.
const maxLoopItems = 8

// pipeIO describes a command's standard input inside a pipeline.
type pipeIO struct {
	piped   bool    // stdin is a pipe from an earlier stage
	fetched bool    // an earlier stage printed data fetched from the network
	text    *string // the static text on stdin, when the analysis knows it
	out     *string // set by the stage: its own static output, if known
}

// inner is the input the statements inside a compound stage see: the same
// pipe, but their own output is not the stage's.
func (io *pipeIO) inner() *pipeIO {
	if io == nil {
		return nil
	}
	return &pipeIO{piped: io.piped, fetched: io.fetched, text: io.text}
}

func (a *analyzer) walkStmts(sc *scope, stmts []*syntax.Stmt, io *pipeIO) traits {
	var t traits
	for _, st := range stmts {
		t |= a.stmt(sc, st, io)
	}
	return t
}

func (a *analyzer) stmt(sc *scope, st *syntax.Stmt, io *pipeIO) traits {
	if st == nil {
		return 0
	}
	run := sc
	if st.Background || st.Coprocess {
		// A background job runs in a subshell: its cd does not stay.
		run = sc.clone()
	}
	rd := a.expandRedirs(run, st)
	t := rd.t
	if st.Cmd != nil {
		t |= a.command(run, st.Cmd, &rd, io)
	}
	a.judgeRedirs(run, &rd, t)
	return t
}

func (a *analyzer) command(sc *scope, cmd syntax.Command, rd *redirs, io *pipeIO) traits {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		return a.callExpr(sc, x, rd, io)
	case *syntax.BinaryCmd:
		return a.binary(sc, x, io)
	case *syntax.Block:
		return a.walkStmts(sc, x.Stmts, io.inner())
	case *syntax.Subshell:
		return a.walkStmts(sc.clone(), x.Stmts, io.inner())
	case *syntax.IfClause:
		return a.ifClause(sc, x, io.inner())
	case *syntax.WhileClause:
		t := a.walkStmts(sc, x.Cond, io.inner())
		b := sc.clone()
		t |= a.walkStmts(b, x.Do, io.inner())
		sc.merge(b)
		return t
	case *syntax.ForClause:
		return a.forClause(sc, x, io.inner())
	case *syntax.CaseClause:
		_, t := a.expandWord(sc, x.Word)
		for _, item := range x.Items {
			for _, p := range item.Patterns {
				t |= a.scan(sc, p)
			}
			b := sc.clone()
			t |= a.walkStmts(b, item.Stmts, io.inner())
			sc.merge(b)
		}
		return t
	case *syntax.FuncDecl:
		a.funcDecl(sc, x)
		return 0
	case *syntax.DeclClause:
		return a.declClause(sc, x)
	case *syntax.TimeClause:
		return a.stmt(sc, x.Stmt, io)
	case *syntax.CoprocClause:
		return a.stmt(sc.clone(), x.Stmt, nil)
	case *syntax.TestDecl:
		return a.stmt(sc.clone(), x.Body, nil)
	default:
		// (( … )), [[ … ]], let: only their substitutions run commands.
		return a.scan(sc, cmd)
	}
}

// binary handles && and || lists and pipelines.
func (a *analyzer) binary(sc *scope, x *syntax.BinaryCmd, io *pipeIO) traits {
	switch x.Op {
	case syntax.Pipe, syntax.PipeAll:
		return a.pipeline(sc, x, io)
	default:
		// The right side may or may not run, so what it changes becomes
		// unknown afterwards; it does see what the left side changed.
		t := a.stmt(sc, x.X, io.inner())
		b := sc.clone()
		t |= a.stmt(b, x.Y, io.inner())
		sc.merge(b)
		return t
	}
}

// pipeline analyses each stage in its own subshell, telling each stage what
// reaches its standard input: network data (curl … | sh is critical) or
// static text (echo 'rm -rf /' | sh is analysed as a script).
func (a *analyzer) pipeline(sc *scope, x *syntax.BinaryCmd, io *pipeIO) traits {
	var stages []*syntax.Stmt
	flattenPipe(x, &stages)
	in := io.inner()
	var t traits
	for i, st := range stages {
		cur := &pipeIO{}
		if i == 0 {
			if in != nil {
				*cur = *in
			}
		} else {
			cur.piped = true
			cur.fetched = t&tFetch != 0 || io != nil && io.fetched
			cur.text = in.out
		}
		// A stage that fetched taints every stage after it, not only the
		// next one (curl … | tee f | sh).
		t |= a.stmt(sc.clone(), st, cur)
		in = cur
	}
	if io != nil && in != nil {
		// The pipeline's output is its last stage's.
		io.out = in.out
	}
	return t
}

func flattenPipe(x *syntax.BinaryCmd, out *[]*syntax.Stmt) {
	for _, side := range []*syntax.Stmt{x.X, x.Y} {
		if b, ok := side.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
			len(side.Redirs) == 0 && !side.Negated && !side.Background {
			flattenPipe(b, out)
			continue
		}
		*out = append(*out, side)
	}
}

func (a *analyzer) ifClause(sc *scope, x *syntax.IfClause, io *pipeIO) traits {
	t := a.walkStmts(sc, x.Cond, io)
	b := sc.clone()
	t |= a.walkStmts(b, x.Then, io)
	if x.Else != nil {
		e := sc.clone()
		t |= a.ifClause(e, x.Else, io)
		b.merge(e)
		sc.merge(b)
		return t
	}
	sc.merge(b)
	return t
}

// forClause binds the loop variable to each static item in turn (up to
// maxLoopItems), so `for d in / ~; do rm -rf "$d"; done` is judged on / and ~.
func (a *analyzer) forClause(sc *scope, x *syntax.ForClause, io *pipeIO) traits {
	wi, ok := x.Loop.(*syntax.WordIter)
	if !ok {
		t := a.scan(sc, x.Loop)
		b := sc.clone()
		t |= a.walkStmts(b, x.Do, io)
		sc.merge(b)
		return t
	}
	var items []field
	var t traits
	static := true
	for _, w := range wi.Items {
		fs, wt := a.expandWord(sc, w)
		t |= wt
		for _, f := range fs {
			static = static && f.static()
		}
		items = append(items, fs...)
	}
	if !wi.InPos.IsValid() {
		// "for x; do" iterates over the positional parameters.
		static = sc.posKnown
		items = items[:0]
		for _, v := range sc.positional {
			static = static && !v.dynamic
			items = append(items, field{value: v.text, globAt: -1})
		}
	}
	name := wi.Name.Value
	if !static || len(items) == 0 || len(items) > maxLoopItems {
		b := sc.clone()
		b.setVar(name, value{}, false)
		t |= a.walkStmts(b, x.Do, io)
		sc.merge(b)
		return t
	}
	for _, it := range items {
		b := sc.clone()
		b.setVar(name, value{text: it.value, pattern: it.globAt >= 0}, true)
		t |= a.walkStmts(b, x.Do, io)
		sc.merge(b)
	}
	return t
}

func (a *analyzer) declClause(sc *scope, x *syntax.DeclClause) traits {
	var t traits
	if v := x.Variant.Value; v == "export" || v == "declare" || v == "typeset" {
		names := 0
		for _, as := range x.Args {
			if !as.Naked || as.Name != nil {
				names++
			}
		}
		if names == 0 {
			a.printsEnv(a.text(sc, x), v)
		}
	}
	for _, as := range x.Args {
		if as.Naked {
			if as.Value != nil {
				_, wt := a.expandWord(sc, as.Value)
				t |= wt
			}
			continue
		}
		t |= a.assign(sc, as, true)
	}
	return t
}

// assign analyses an assignment and, when apply is set, records the value.
func (a *analyzer) assign(sc *scope, as *syntax.Assign, apply bool) traits {
	if as.Name == nil {
		return 0
	}
	if gitEnv(as.Name.Value) {
		a.add(High, "git-environment", sentence("Sets %s, which points git at another repository, configuration or program", as.Name.Value), a.text(sc, as), as.Name.Value)
	}
	var t traits
	if as.Index != nil {
		t |= a.scan(sc, as.Index)
	}
	if as.Array != nil {
		t |= a.scan(sc, as.Array)
		if apply {
			sc.setVar(as.Name.Value, value{}, false)
		}
		return t
	}
	f, wt := a.expandAssign(sc, as.Value)
	t |= wt
	if !apply {
		return t
	}
	v := value{text: f.value, dynamic: f.dynamic, lead: f.lead}
	if as.Append {
		old, ok := a.lookup(sc, as.Name.Value)
		if !ok {
			old = value{dynamic: true, lead: true}
		}
		v = value{text: old.text + v.text, dynamic: old.dynamic || v.dynamic, lead: old.lead || old.text == "" && v.lead}
	}
	sc.setVar(as.Name.Value, v, as.Index == nil)
	return t
}

// scan analyses the command and process substitutions anywhere inside n
// (arithmetic, [[ ]] tests, ${x:-$(…)} defaults, array values).
func (a *analyzer) scan(sc *scope, n syntax.Node) traits {
	var t traits
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.CmdSubst:
			t |= a.walkStmts(sc.clone(), x.Stmts, nil)
			return false
		case *syntax.ProcSubst:
			t |= a.walkStmts(sc.clone(), x.Stmts, nil)
			return false
		}
		return true
	})
	return t
}
