package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call is one simple command after expansion, ready for the rules.
type call struct {
	sc   *scope
	args []field // args[0] is the command name
	text string  // the simple command as written, for findings
	rd   *redirs // the statement's redirections
	io   *pipeIO // its place in a pipeline, or nil
}

// with returns the same command with other arguments: a wrapper's inner
// command keeps the outer text, scope and input.
func (c *call) with(args []field) *call {
	n := *c
	n.args = args
	return &n
}

// srcs returns the fields as written, for messages.
func srcs(fs []field) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.src)
	}
	return out
}

func (a *analyzer) callExpr(sc *scope, x *syntax.CallExpr, rd *redirs, io *pipeIO) traits {
	var t traits
	if len(x.Args) == 0 {
		for _, as := range x.Assigns {
			t |= a.assign(sc, as, true)
		}
		return t
	}
	// FOO=bar cmd: the value only reaches cmd's environment, not the
	// expansion of cmd's own arguments.
	for _, as := range x.Assigns {
		t |= a.assign(sc, as, false)
	}
	args := make([]field, 0, len(x.Args))
	for _, w := range x.Args {
		var wt traits
		args, wt = a.appendWord(args, sc, w)
		t |= wt
	}
	if len(args) == 0 {
		return t
	}
	return t | a.run(&call{sc: sc, args: args, text: a.text(sc, x), rd: rd, io: io})
}

// run analyses one command: its name first (computed? a function? a
// downloaded file?), then the rules for that name.
func (a *analyzer) run(c *call) traits {
	if !a.step(c.text) {
		return 0
	}
	name := c.args[0]
	if computedName(name) {
		a.add(High, "computed-command", sentence("The command name %s is computed at run time, so what runs cannot be checked", name.src), c.text, name.src)
		if name.dynamic || name.procSubst {
			if name.fetch {
				a.add(Critical, "download-exec", "Runs a command fetched from the network", c.text, name.src)
			}
			return 0
		}
	}
	if name.value == "" {
		return 0
	}
	a.readsEnviron(c)
	if strings.Contains(name.value, "/") {
		a.runsFile(c, name)
	}
	if def, ok := c.sc.funcs[name.value]; ok {
		a.callFunc(c, def)
	}
	return a.dispatch(c, commandName(name.value))
}

// computedName reports whether the last path element of a command name
// comes from an expansion: `$x`, `$(…)`, `/bin/$x` are computed,
// `$HOME/bin/tool` and `~/bin/tool` are not.
func computedName(f field) bool {
	return f.procSubst || f.expEnd >= 0 && f.expEnd > strings.LastIndexByte(f.value, '/')
}

// commandName normalises a command word the way lookup sees it: the last
// path element (/usr/bin/rm and ./rm are both rm — a workspace script named
// like a system tool is judged as that tool), lower-cased because macOS
// file systems find /bin/rm for RM.
func commandName(v string) string {
	return strings.ToLower(v[strings.LastIndexByte(v, '/')+1:])
}

// family maps versioned interpreter names to their family: python3.12 and
// pip3 are python and pip.
func family(name string) string {
	base := strings.TrimRight(name, "0123456789.-")
	switch base {
	case "python", "pypy", "pip", "perl", "ruby", "php", "lua", "luajit", "node", "gem", "bash", "zsh", "ksh", "easy_install":
		return base
	case "nodejs":
		return "node"
	case "gawk", "mawk", "nawk":
		return "awk"
	}
	return name
}

// runsFile flags running a file that the same command line downloaded.
func (a *analyzer) runsFile(c *call, name field) {
	p := a.classify(c.sc, name)
	if p.kind != placeUnknown && c.sc.downloads[p.path] {
		a.add(Critical, "download-exec", sentence("Runs %s, which this command downloaded from the network", name.src), c.text, name.src)
	}
}

// callFunc analyses a function body with the call's arguments as $1….
func (a *analyzer) callFunc(c *call, def funcDef) {
	*def.called = true
	if def.bomb {
		a.add(Critical, "fork-bomb", sentence("Calls %s, a function that starts copies of itself in the background: a fork bomb that freezes the machine", c.args[0].src), c.text, c.args[0].src)
	}
	if a.active[def.body] {
		return
	}
	if a.active == nil {
		a.active = map[*syntax.Stmt]bool{}
	}
	a.active[def.body] = true
	defer delete(a.active, def.body)
	fs := c.sc.clone()
	fs.src, fs.depth = def.src, def.depth
	fs.positional, fs.posKnown = positional(c.args[1:])
	a.stmt(fs, def.body, c.io.inner())
	// The body ran in the current shell: its cd and assignments stay.
	c.sc.cwd, c.sc.vars, c.sc.ifs, c.sc.ifsKnown, c.sc.homeSet = fs.cwd, fs.vars, fs.ifs, fs.ifsKnown, fs.homeSet
	c.sc.funcs, c.sc.downloads = fs.funcs, fs.downloads
}

// positional turns call arguments into $1…: their number is known, their
// values as far as the fields are.
func positional(args []field) ([]value, bool) {
	vs := make([]value, 0, len(args))
	for _, f := range args {
		vs = append(vs, value{text: f.value, pattern: f.globAt >= 0, dynamic: f.dynamic, lead: f.lead})
	}
	return vs, true
}

// funcDecl records a function for when it is called; a body that starts
// itself in a pipeline or in the background is a fork bomb, whatever it is
// named (:(){ :|:& };: and bomb(){ bomb|bomb& };bomb alike).
func (a *analyzer) funcDecl(sc *scope, x *syntax.FuncDecl) {
	if x.Name == nil || x.Body == nil {
		return
	}
	name := x.Name.Value
	def := funcDef{body: x.Body, src: sc.src, depth: sc.depth, called: new(bool), bomb: spawnsItself(name, x.Body)}
	if def.bomb {
		a.add(High, "fork-bomb-defined", sentence("Defines %s, a function that starts copies of itself in the background (a fork bomb)", name), a.text(sc, x), name)
	}
	sc.defineFunc(name, def)
	a.defs = append(a.defs, deferredFunc{def: def, sc: sc.clone()})
}

// uncalledFuncs analyses the bodies of functions that were defined but
// never called, since the analysis may have missed the call (a computed
// name, an alias, a later command line in the same shell).
func (a *analyzer) uncalledFuncs() {
	for i := 0; i < len(a.defs); i++ {
		d := a.defs[i]
		if *d.def.called || a.steps > maxSteps {
			continue
		}
		*d.def.called = true
		fs := d.sc
		fs.src, fs.depth = d.def.src, d.def.depth
		fs.positional, fs.posKnown = nil, false
		if a.active == nil {
			a.active = map[*syntax.Stmt]bool{}
		}
		a.active[d.def.body] = true
		a.stmt(fs, d.def.body, nil)
		delete(a.active, d.def.body)
	}
}

func spawnsItself(name string, body *syntax.Stmt) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if (x.Background || x.Coprocess) && callsName(x, name) {
				found = true
			}
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && (callsName(x.X, name) || callsName(x.Y, name)) {
				found = true
			}
		}
		return !found
	})
	return found
}

func callsName(n syntax.Node, name string) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			if s, ok := staticWord(ce.Args[0]); ok && s == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// staticWord returns the value of a word made only of literal text and
// quotes, without analysing anything.
func staticWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var add func(ps []syntax.WordPart, quoted bool) bool
	add = func(ps []syntax.WordPart, quoted bool) bool {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(unescapeDouble(p.Value))
				} else {
					b.WriteString(strings.ReplaceAll(p.Value, "\\", ""))
				}
			case *syntax.SglQuoted:
				if p.Dollar {
					b.WriteString(ansiC(p.Value))
				} else {
					b.WriteString(p.Value)
				}
			case *syntax.DblQuoted:
				if p.Dollar || !add(p.Parts, true) { // $"…" is translated
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	ok := add(w.Parts, false)
	return b.String(), ok
}
