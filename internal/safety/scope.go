package safety

import (
	"maps"

	"mvdan.cc/sh/v3/syntax"
)

// maxValueLen caps the length of a variable value the analysis tracks, so
// that x=$x$x repeated forty times cannot grow a string to terabytes.
const maxValueLen = 4096

// value is what the analysis knows about a variable.
type value struct {
	text string
	// pattern means the variable holds each path matching text in turn,
	// as a for-loop variable over a glob does; it globs even when quoted.
	pattern bool
	// dynamic: only partly known (x=$(cmd)/etc, x=${X:-/opt}); text is the
	// value when the computed part is empty, lead that it starts computed.
	dynamic, lead bool
}

// funcDef is a shell function defined by the script.
type funcDef struct {
	body   *syntax.Stmt
	src    string // the text the body's positions refer to
	depth  int
	called *bool // shared by every copy of the scope, so callers mark it once
	bomb   bool  // the body starts the function itself in a pipe or in the background
}

// deferredFunc is a definition with the scope it was made in, analysed at
// the end if nothing called it.
type deferredFunc struct {
	def funcDef
	sc  *scope
}

// scope is what the shell would know at one point of the script: the
// directory, the variables, the positional parameters, the functions. The
// analysis follows it statement by statement so that `cd / && rm -rf *` and
// `x=/; rm -rf $x` are judged on the paths they really touch. Anything the
// analysis cannot follow becomes unknown, never guessed.
type scope struct {
	src   string // the script text positions refer to
	depth int    // nesting of scripts (bash -c, eval, …), for the depth limit

	cwd string // "" when unknown
	// vars holds statically known variables; a name that is absent is unknown.
	vars map[string]value
	// ifs is the field separator; ifsKnown is false once it was assigned a
	// value computed at run time.
	ifs      string
	ifsKnown bool
	// positional are $1…; posKnown is false when they come from outside.
	positional []value
	posKnown   bool

	// homeSet is true once the script assigned HOME, so opts.Home no
	// longer applies.
	homeSet bool

	funcs map[string]funcDef
	// downloads holds paths written with data fetched from the network, so
	// that running one later counts as running downloaded code.
	downloads map[string]bool
}

func newScope(src string, o *Options) *scope {
	return &scope{src: src, cwd: o.Cwd, ifs: " \t\n", ifsKnown: true}
}

// clone returns an independent copy, for a subshell or a branch.
func (s *scope) clone() *scope {
	c := *s
	c.vars = maps.Clone(s.vars)
	c.funcs = maps.Clone(s.funcs)
	c.downloads = maps.Clone(s.downloads)
	return &c
}

// merge folds the state after an optional branch (an if body, the right
// side of &&, a loop body) back into s: whatever differs becomes unknown,
// because the analysis cannot know which way the script went.
func (s *scope) merge(b *scope) {
	if s.cwd != b.cwd {
		s.cwd = ""
	}
	for k, v := range s.vars {
		if bv, ok := b.vars[k]; !ok || bv != v {
			delete(s.vars, k)
		}
	}
	if s.ifs != b.ifs || !b.ifsKnown {
		s.ifsKnown = false
	}
	for k, f := range b.funcs {
		if s.funcs == nil {
			s.funcs = map[string]funcDef{}
		}
		s.funcs[k] = f
	}
	for k := range b.downloads {
		s.markDownload(k)
	}
}

func (s *scope) setVar(name string, v value, known bool) {
	switch name {
	case "IFS":
		s.ifs, s.ifsKnown = v.text, known
	case "HOME":
		s.homeSet = true
	case unknownVar:
		known = false
	}
	if !known || len(v.text) > maxValueLen || v.dynamic && v.text == "" {
		delete(s.vars, name)
		return
	}
	if s.vars == nil {
		s.vars = map[string]value{}
	}
	s.vars[name] = v
}

func (s *scope) markDownload(p string) {
	if s.downloads == nil {
		s.downloads = map[string]bool{}
	}
	s.downloads[p] = true
}

func (s *scope) defineFunc(name string, d funcDef) {
	if s.funcs == nil {
		s.funcs = map[string]funcDef{}
	}
	s.funcs[name] = d
}
