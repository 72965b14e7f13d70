package safety

import (
	"slices"
	"strings"
)

// wrapSpec describes a command that runs another command given as its
// remaining arguments (nice, timeout, nohup, …).
type wrapSpec struct {
	opts optSpec
	// skip is how many operands come before the command (timeout's
	// DURATION, flock's FILE, chroot's NEWROOT).
	skip int
	// noCmd are options after which there is no inner command
	// (command -v, ionice -p PID).
	noCmd []string
	// script are options whose value is a shell command line (flock -c).
	script []string
}

func wrapperSpec(name string) (wrapSpec, bool) {
	posix := func(short string, long ...string) optSpec { return optSpec{short: short, long: long, posix: true} }
	switch name {
	case "command":
		return wrapSpec{opts: posix(""), noCmd: []string{"-v", "-V"}}, true
	case "builtin", "nohup", "unbuffer", "chronic", "catchsegv", "dbus-run-session", "torsocks", "setsid",
		"firejail", "fakeroot", "nocorrect", "noglob", "rlwrap":
		return wrapSpec{opts: posix("")}, true
	case "exec":
		return wrapSpec{opts: posix("a")}, true
	case "nice":
		return wrapSpec{opts: posix("n", "adjustment")}, true
	case "ionice":
		return wrapSpec{opts: posix("cnp", "class", "classdata", "pid", "pgid", "uid"), noCmd: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}}, true
	case "timeout":
		return wrapSpec{opts: posix("ks", "kill-after", "signal"), skip: 1}, true
	case "stdbuf":
		return wrapSpec{opts: posix("ioe", "input", "output", "error")}, true
	case "time":
		return wrapSpec{opts: posix("fo", "format", "output")}, true
	case "chrt":
		return wrapSpec{opts: posix("TPD", "sched-runtime", "sched-period", "sched-deadline"), skip: 1, noCmd: []string{"-p", "--pid"}}, true
	case "taskset":
		return wrapSpec{opts: posix(""), skip: 1, noCmd: []string{"-p", "--pid"}}, true
	case "flock":
		return wrapSpec{opts: posix("wEc", "timeout", "conflict-exit-code", "command"), skip: 1, script: []string{"-c", "--command"}}, true
	case "chroot":
		return wrapSpec{opts: posix("", "userspec", "groups"), skip: 1}, true
	case "strace", "ltrace":
		return wrapSpec{opts: posix("eoOpPsuESabIXAn")}, true
	case "caffeinate":
		return wrapSpec{opts: posix("tw")}, true
	case "proxychains", "proxychains4":
		return wrapSpec{opts: posix("f")}, true
	case "systemd-run":
		return wrapSpec{opts: posix("pEuMH", "unit", "property", "setenv", "uid", "gid", "working-directory", "description", "slice", "machine", "host", "nice")}, true
	case "xvfb-run":
		return wrapSpec{opts: posix("fnsepw", "auth-file", "server-num", "server-args", "error-file", "xauth-protocol", "wait")}, true
	}
	return wrapSpec{}, false
}

// wrapped analyses the command a wrapper runs.
func (a *analyzer) wrapped(c *call, spec wrapSpec) traits {
	args := c.args[1:]
	p := parseOpts(args, spec.opts)
	if p.has(spec.noCmd...) {
		return 0
	}
	if s, ok := p.val(spec.script...); ok {
		return a.subshell(c, s, nil)
	}
	rest := p.rest + spec.skip
	if rest >= len(args) {
		return 0
	}
	// flock FILE -c CMD: the script option may follow the operand.
	if rest+1 < len(args) && args[rest].static() && slices.Contains(spec.script, args[rest].value) {
		return a.subshell(c, args[rest+1], nil)
	}
	return a.run(c.with(args[rest:]))
}

// privileged flags privilege escalation and analyses the command it runs.
func (a *analyzer) privileged(c *call, name string) traits {
	a.add(High, "privilege-escalation", sentence("Runs with elevated privileges (%s)", name), c.text, c.args[0].src)
	args := c.args[1:]
	switch name {
	case "sudo", "please":
		p := parseOpts(args, optSpec{short: "ugCDhpcrtTUR", long: []string{"user", "group", "chdir", "prompt", "close-from", "host", "role", "type", "command-timeout", "other-user", "chroot"}, posix: true})
		inner := args[p.rest:]
		if p.has("-e", "--edit") {
			a.editFiles(c, inner)
			return 0
		}
		if len(inner) == 0 {
			return 0
		}
		if p.has("-s", "--shell", "-i", "--login") {
			// sudo -s cmd runs $SHELL -c "cmd": the arguments are joined.
			return a.subshell(c, joinFields(inner), nil)
		}
		return a.run(c.with(inner))
	case "sudoedit":
		a.editFiles(c, parseOpts(args, optSpec{short: "ugCDhpcrtTUR", posix: true}).operands)
		return 0
	case "doas":
		p := parseOpts(args, optSpec{short: "Cu", posix: true})
		return a.runRest(c, args, p.rest)
	case "pkexec":
		p := parseOpts(args, optSpec{long: []string{"user"}, posix: true})
		return a.runRest(c, args, p.rest)
	case "run0":
		p := parseOpts(args, optSpec{short: "uDg", long: []string{"user", "group", "chdir", "setenv", "property", "slice", "unit", "description", "nice", "machine", "background"}, posix: true})
		return a.runRest(c, args, p.rest)
	default: // su, runuser
		p := parseOpts(args, optSpec{short: "cgGsuw", long: []string{"command", "session-command", "group", "supp-group", "shell", "user", "whitelist-environment"}})
		if s, ok := p.val("-c", "--command", "--session-command"); ok {
			return a.subshell(c, s, nil)
		}
		if _, ok := p.val("-u", "--user"); ok && name == "runuser" && len(p.operands) > 0 {
			return a.run(c.with(p.operands))
		}
		return 0
	}
}

func (a *analyzer) runRest(c *call, args []field, rest int) traits {
	if rest >= len(args) {
		return 0
	}
	return a.run(c.with(args[rest:]))
}

// editFiles judges files opened in an editor as root (sudo -e).
func (a *analyzer) editFiles(c *call, files []field) {
	for _, f := range files {
		a.judge(c.sc, c.text, f, pathOp{effect: effOverwrite})
	}
}

// env skips env's options and NAME=VALUE pairs; -C changes the directory
// the inner command runs in, -S splits a string into more arguments.
func (a *analyzer) env(c *call) traits {
	args := c.args[1:]
	p := parseOpts(args, optSpec{short: "uCS", long: []string{"unset", "chdir", "split-string"}, posix: true})
	inner := args[p.rest:]
	for len(inner) > 0 && inner[0].static() && strings.Contains(inner[0].value, "=") {
		inner = inner[1:]
	}
	if s, ok := p.val("-S", "--split-string"); ok {
		if s.dynamic {
			a.add(High, "computed-command", "env -S runs a command line computed at run time", c.text, s.src)
			return 0
		}
		var split []field
		for _, w := range strings.Fields(s.value) {
			// env -S expands ${NAME} from the environment itself.
			if home := a.home(c.sc); home != "" {
				w = strings.ReplaceAll(w, "${HOME}", home)
			}
			if strings.Contains(w, "${") {
				a.add(High, "computed-command", sentence("env -S expands %s at run time, so what runs cannot be checked", w), c.text, s.src)
				return 0
			}
			split = append(split, literal(w))
		}
		inner = append(split, inner...)
	}
	if len(inner) == 0 {
		if !p.has("-i", "--ignore-environment", "-") {
			a.printsEnv(c.text, "env")
		}
		return 0
	}
	ic := c.with(inner)
	if dir, ok := p.val("-C", "--chdir"); ok {
		ic.sc = c.sc.clone()
		ic.sc.cwd = a.dirOf(c.sc, dir)
	}
	return a.run(ic)
}

// dirOf resolves a directory argument, or "" when it is not known.
func (a *analyzer) dirOf(sc *scope, f field) string {
	p := a.classify(sc, f)
	if p.kind == placeUnknown || p.contents {
		return ""
	}
	return p.path
}

// watch runs its arguments through sh -c, joined, unless -x is given.
func (a *analyzer) watch(c *call) traits {
	args := c.args[1:]
	p := parseOpts(args, optSpec{short: "nq", long: []string{"interval", "equexit"}, posix: true})
	inner := args[p.rest:]
	if len(inner) == 0 {
		return 0
	}
	if p.has("-x", "--exec") {
		return a.run(c.with(inner))
	}
	return a.subshell(c, joinFields(inner), nil)
}

// xargs runs a command with arguments read from its input. When an earlier
// stage printed static text (echo / | xargs rm -rf) those are the
// arguments; otherwise they are unknown, so `xargs rm` deletes paths the
// analysis cannot see.
func (a *analyzer) xargs(c *call) traits {
	args := c.args[1:]
	p := parseOpts(args, optSpec{short: "aEILnPsd", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var", "max-lines"}, posix: true})
	cmd := args[p.rest:]
	if len(cmd) == 0 {
		cmd = []field{literal("echo")}
	}
	repl := ""
	if r, ok := p.val("-I", "--replace"); ok {
		repl = r.value
	} else if p.has("-i", "--replace") {
		repl = "{}"
	}
	inputs := []field{{src: "(xargs input)", code: "${" + unknownVar + "}", dynamic: true, lead: true, globAt: -1, expEnd: 0}}
	_, fromFile := p.val("-a", "--arg-file")
	if text, ok := stdinText(c); ok && !fromFile {
		inputs = inputs[:0]
		sep := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }
		if repl != "" || p.has("-0", "--null") {
			sep = func(r rune) bool { return r == '\n' || r == 0 }
		}
		for _, w := range strings.FieldsFunc(text, sep) {
			if len(inputs) == maxLoopItems {
				break
			}
			inputs = append(inputs, literal(w))
		}
	}
	var runs [][]field
	if repl == "" {
		runs = append(runs, append(slices.Clone(cmd), inputs...))
	} else {
		for _, in := range inputs {
			run := slices.Clone(cmd)
			for i, f := range run {
				if strings.Contains(f.value, repl) {
					run[i] = replaced(f, repl, in)
				}
			}
			runs = append(runs, run)
		}
	}
	var t traits
	for _, r := range runs {
		ic := c.with(r)
		ic.io, ic.rd = nil, &redirs{}
		t |= a.run(ic)
	}
	return t
}

// replaced substitutes r in f by the field with (an unknown input, or a
// find start path).
func replaced(f field, r string, with field) field {
	if f.value == r {
		w := with
		w.src = f.src
		return w
	}
	n := f
	before, after, _ := strings.Cut(f.value, r)
	n.value = before + with.value + after
	n.code = strings.Replace(f.code, r, with.code, 1)
	if with.dynamic {
		n.dynamic = true
		n.lead = n.lead || before == ""
		n.expEnd = len(before)
	}
	if with.globAt >= 0 && n.globAt < 0 {
		n.globAt = len(before) + with.globAt
	}
	return n
}

// joinFields joins fields with spaces into one field of shell code, the way
// sudo -s, watch and ssh join their arguments for a shell.
func joinFields(fs []field) field {
	var j field
	j.globAt, j.expEnd = -1, -1
	var vals, codes, src []string
	for _, f := range fs {
		vals = append(vals, f.value)
		codes = append(codes, f.code)
		src = append(src, f.src)
		j.dynamic = j.dynamic || f.dynamic
		j.fetch = j.fetch || f.fetch
	}
	j.value, j.code, j.src = strings.Join(vals, " "), strings.Join(codes, " "), strings.Join(src, " ")
	return j
}
