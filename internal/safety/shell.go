package safety

import (
	"maps"
	"strings"
)

// newShell is the scope of a new shell process started by sc's shell: it
// inherits the directory and what is on disk (downloads), not variables or
// functions (exported ones are not tracked).
func (a *analyzer) newShell(parent *scope) *scope {
	sc := &scope{depth: parent.depth + 1, cwd: parent.cwd, ifs: " \t\n", ifsKnown: true, downloads: maps.Clone(parent.downloads)}
	if parent.homeSet {
		sc.homeSet = true
		if v, ok := parent.vars["HOME"]; ok {
			sc.vars = map[string]value{"HOME": v}
		}
	}
	return sc
}

// subshell analyses code run by a new shell (bash -c, sudo -s, watch,
// flock -c); args become $0, $1, ….
func (a *analyzer) subshell(c *call, code field, args []field) traits {
	if code.fetch {
		a.add(Critical, "download-exec", "Runs shell code fetched from the network", c.text, code.src)
	}
	if code.subst != nil {
		// bash -c "$(echo … | base64 -d)": the decoded text is what runs.
		code = literal(*code.subst)
	}
	if code.dynamic {
		a.add(High, "shell-computed-script", sentence("Runs shell code computed at run time (%s), which cannot be checked", code.src), c.text, code.src)
	}
	sc := a.newShell(c.sc)
	if len(args) > 1 {
		sc.positional, sc.posKnown = positional(args[1:])
	} else {
		sc.posKnown = true
	}
	return a.script(sc, code.code, c.text)
}

// shell handles bash, sh, zsh and friends: -c 'code', a script file, or
// commands read from standard input (a pipe, a here-document).
func (a *analyzer) shell(c *call) traits {
	args := c.args[1:]
	cmdMode, stdinMode := false, false
	i := 0
loop:
	for ; i < len(args); i++ {
		f := args[i]
		v := f.value
		switch {
		case f.dynamic:
			break loop
		case v == "--" || v == "-":
			i++
			break loop
		case v == "--rcfile" || v == "--init-file":
			i++
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for _, ch := range v[1:] {
				switch ch {
				case 'c':
					cmdMode = true
				case 's':
					stdinMode = true
				case 'o', 'O':
					i++ // -o pipefail: the option name is the next word
				}
			}
		default:
			break loop
		}
	}
	var ops []field
	if i < len(args) {
		ops = args[i:]
	}
	switch {
	case cmdMode:
		if len(ops) == 0 {
			return 0
		}
		return a.subshell(c, ops[0], ops[1:])
	case !stdinMode && len(ops) > 0:
		a.scriptFile(c, ops[0], true)
		return 0
	}
	code, ok := a.stdinCode(c, "a shell")
	if !ok {
		return 0
	}
	return a.subshell(c, code, nil)
}

// scriptFile checks a script a shell (shell true) or an interpreter runs
// from a file: one fetched from the network (bash <(curl …), or downloaded
// earlier) is critical; a process substitution is the output of another
// command used as the script — analysed when it is static text
// (bash <(echo …)), otherwise high, since what it runs cannot be seen.
func (a *analyzer) scriptFile(c *call, f field, shell bool) {
	switch {
	case f.procSubst && f.fetch:
		a.add(Critical, "download-exec", "Runs a script fetched from the network", c.text, f.src)
	case f.procSubst && f.subst != nil && shell:
		a.subshell(c, literal(*f.subst), nil)
	case f.procSubst:
		a.add(High, "procsub-script", sentence("Runs the output of another command as a script (%s), so the code cannot be checked", f.src), c.text, f.src)
	default:
		a.runsFile(c, f)
	}
}

// stdinCode returns the code a shell or interpreter reads on its standard
// input, when the analysis can see it; network data there is critical.
func (a *analyzer) stdinCode(c *call, what string) (field, bool) {
	if c.rd != nil && c.rd.stdin != nil {
		return *c.rd.stdin, true
	}
	if c.rd != nil && c.rd.stdinFile != nil {
		a.runsFile(c, *c.rd.stdinFile)
		return field{}, false
	}
	if c.io == nil || !c.io.piped {
		return field{}, false
	}
	if c.io.fetched {
		a.add(Critical, "download-exec", sentence("Pipes data fetched from the network into %s, running code nobody has seen", what), c.text, c.args[0].src)
	}
	if c.io.text != nil {
		return literal(*c.io.text), true
	}
	if !c.io.fetched {
		a.add(High, "stdin-computed-script", sentence("Pipes text produced at run time into %s, so the code it runs cannot be checked", what), c.text, c.args[0].src)
	}
	return field{}, false
}

// eval runs its arguments, joined, as code in the current shell.
func (a *analyzer) eval(c *call) traits {
	if len(c.args) < 2 {
		return 0
	}
	code := joinFields(c.args[1:])
	if len(c.args) == 2 && c.args[1].subst != nil {
		// eval "$(echo … | base64 -d)": the decoded text is what runs.
		code = literal(*c.args[1].subst)
	}
	if code.fetch {
		a.add(Critical, "download-exec", "Evaluates shell code fetched from the network", c.text, code.src)
	}
	if code.dynamic {
		a.add(High, "eval-computed", sentence("Evaluates text computed at run time as shell code (%s)", code.src), c.text, code.src)
	}
	c.sc.depth++
	defer func() { c.sc.depth-- }()
	return a.script(c.sc, code.code, c.text)
}

// source reads a file as code in the current shell.
func (a *analyzer) source(c *call) {
	if len(c.args) < 2 {
		return
	}
	f := c.args[1]
	if f.static() && (f.value == "/dev/stdin" || f.value == "-") {
		if code, ok := a.stdinCode(c, "the shell"); ok {
			a.subshell(c, code, nil)
		}
		return
	}
	a.scriptFile(c, f, true)
}

// trap's handler runs later in the same shell; it is analysed now.
func (a *analyzer) trap(c *call) {
	args := c.args[1:]
	if len(args) > 0 && args[0].static() && args[0].value == "--" {
		args = args[1:]
	}
	if len(args) < 2 || args[0].static() && (args[0].value == "-" || strings.HasPrefix(args[0].value, "-")) {
		return
	}
	a.subshell(c, args[0], nil)
}

// alias values are analysed as code: an interactive shell (and one with
// expand_aliases) runs them when the name is used.
func (a *analyzer) alias(c *call) {
	for _, f := range c.args[1:] {
		if _, val, ok := strings.Cut(f.value, "="); ok {
			a.subshell(c, subField(f, val), nil)
		}
	}
}

// ssh runs its remaining arguments, joined, as a command on another
// machine; that command is analysed too (with an unknown directory), and
// its output counts as network data.
func (a *analyzer) ssh(c *call) traits {
	p := parseOpts(c.args[1:], optSpec{short: "BbcDEeFIiJLlmOopQRSWw", posix: true})
	ops := p.operands
	a.add(Medium, "remote-command", "Connects to another machine over ssh", c.text, c.args[0].src)
	if len(ops) > 1 {
		code := joinFields(ops[1:])
		sc := a.newShell(c.sc)
		sc.cwd = ""
		a.script(sc, code.code, c.text)
	}
	return tFetch
}
