package safety

import (
	"mvdan.cc/sh/v3/syntax"
)

// redirs are a statement's redirections after expansion.
type redirs struct {
	t traits
	// stdin is the text a here-document or here-string feeds the command.
	stdin *field
	// stdinFile is the file `< file` feeds it.
	stdinFile *field
	outs      []redirOut
	text      string // the statement as written
}

type redirOut struct {
	f      field
	op     effect
	stdout bool // the command's standard output goes there
}

// expandRedirs expands every redirection word (analysing substitutions in
// them) and sorts them into input and output.
func (a *analyzer) expandRedirs(sc *scope, st *syntax.Stmt) redirs {
	rd := redirs{}
	if len(st.Redirs) == 0 {
		return rd
	}
	rd.text = a.text(sc, st)
	for _, r := range st.Redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil && (fd == "" || fd == "0") {
				f, t := a.expandText(sc, r.Hdoc)
				rd.t |= t
				rd.stdin = &f
			}
			continue
		case syntax.WordHdoc:
			f, t := a.expandText(sc, r.Word)
			rd.t |= t
			if fd == "" || fd == "0" {
				f.value += "\n"
				f.code += "\n"
				rd.stdin = &f
			}
			continue
		}
		fs, t := a.expandWord(sc, r.Word)
		rd.t |= t
		if len(fs) != 1 {
			// An ambiguous redirect is an error at run time; nothing is written.
			continue
		}
		f := fs[0]
		switch r.Op {
		case syntax.RdrIn:
			if fd == "" || fd == "0" {
				rd.stdinFile = &f
			}
		case syntax.DplIn, syntax.DplOut:
			// >&2 and <&- duplicate descriptors; `>& file` is bash's &>.
			if r.Op == syntax.DplOut && f.static() && !isFD(f.value) && fd == "" {
				rd.outs = append(rd.outs, redirOut{f: f, op: effOverwrite, stdout: true})
			}
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob:
			rd.outs = append(rd.outs, redirOut{f: f, op: effOverwrite, stdout: fd == "" || fd == "1"})
		case syntax.AppOut, syntax.AppClob, syntax.AppAll, syntax.AppAllClob:
			rd.outs = append(rd.outs, redirOut{f: f, op: effAppend, stdout: fd == "" || fd == "1"})
		case syntax.RdrInOut:
			rd.outs = append(rd.outs, redirOut{f: f, op: effAppend})
		}
	}
	return rd
}

// judgeRedirs judges the output targets; t tells whether the command's
// output was fetched from the network, which makes the target a download.
func (a *analyzer) judgeRedirs(sc *scope, rd *redirs, t traits) {
	for _, o := range rd.outs {
		p := a.judge(sc, rd.text, o.f, pathOp{effect: o.op})
		if o.stdout && t&tFetch != 0 && p.kind != placeUnknown && p.kind != placeSink {
			sc.markDownload(p.path)
		}
	}
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			if r == '-' && len(s) > 1 {
				continue // 2>&1- moves a descriptor
			}
			return false
		}
	}
	return true
}

// expandText expands a here-document body or here-string: one field, no
// splitting or globbing, as inside double quotes.
func (a *analyzer) expandText(sc *scope, w *syntax.Word) (field, traits) {
	e := expander{a: a, sc: sc, noSplit: true}
	e.reset()
	if w != nil {
		e.parts(w.Parts, true, false)
	}
	e.finish(true)
	f := e.fields[0]
	f.src = a.text(sc, w)
	f.globAt = -1
	return f, e.t
}
