package safety

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Parameter expansion: $name, ${name}, $1, $@, ${name:-word}.

func (e *expander) param(p *syntax.ParamExp, quoted bool) {
	if defaultParam(p) {
		e.withDefault(p, quoted)
		return
	}
	if !simpleParam(p) {
		e.t |= e.a.scan(e.sc, p)
		e.unknown()
		return
	}
	name := p.Param.Value
	switch {
	case name == "IFS" && !quoted && !e.noSplit:
		if e.sc.ifsKnown {
			e.finish(false)
		} else {
			e.unknown()
		}
	case name == "@" || name == "*":
		e.positional(name, quoted)
	case name == "#" && e.sc.posKnown:
		e.known(value{text: strconv.Itoa(len(e.sc.positional))}, quoted)
	case len(name) == 1 && name[0] >= '1' && name[0] <= '9':
		n := int(name[0] - '1')
		switch {
		case !e.sc.posKnown:
			e.unknown()
		case n < len(e.sc.positional):
			e.known(e.sc.positional[n], quoted)
		default:
			e.started = e.started || quoted
		}
	default:
		if v, ok := e.a.lookup(e.sc, name); ok {
			e.known(v, quoted)
		} else {
			e.unknown()
		}
	}
}

func (e *expander) positional(name string, quoted bool) {
	if !e.sc.posKnown {
		e.unknown()
		return
	}
	if quoted && name == "*" {
		var texts []string
		for _, v := range e.sc.positional {
			texts = append(texts, v.text)
		}
		e.known(value{text: strings.Join(texts, e.sc.ifs[:min(1, len(e.sc.ifs))])}, true)
		return
	}
	for i, v := range e.sc.positional {
		if i > 0 {
			e.finish(quoted)
		}
		e.known(v, quoted)
	}
}

// withDefault expands ${x:-word} and friends. When x is unknown the result
// is computed, but word is what it is when x is unset, which is what
// matters for `rm -rf ${DIR:-/}` and for PREFIX=${PREFIX:-$HOME/.local}.
func (e *expander) withDefault(p *syntax.ParamExp, quoted bool) {
	v, ok := e.a.lookup(e.sc, p.Param.Value)
	orNull := p.Exp.Op == syntax.DefaultUnsetOrNull || p.Exp.Op == syntax.AssignUnsetOrNull
	if ok && (v.dynamic && v.text != "" || !v.dynamic && (v.text != "" || !orNull)) {
		e.known(v, quoted)
		return
	}
	atStart := e.vb.Len() == 0 && !e.cur.dynamic
	mark := len(e.cb)
	if p.Exp.Word != nil {
		e.parts(p.Exp.Word.Parts, quoted, true)
	}
	e.started = true
	if !ok || v.dynamic {
		e.cur.dynamic = true
		e.cur.lead = e.cur.lead || atStart
		e.cur.expEnd = e.vb.Len()
		e.cb = append(e.cb[:mark], "${"+unknownVar+"}"...)
	}
}
