package safety

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// cd follows the directory so later relative paths resolve where the shell
// would be; a directory the analysis cannot know makes them unknown.
func (a *analyzer) cd(c *call) {
	sc := c.sc
	args := c.args[1:]
	for len(args) > 0 && args[0].static() && len(args[0].value) > 1 && args[0].value[0] == '-' {
		if args[0].value == "--" {
			args = args[1:]
			break
		}
		args = args[1:]
	}
	name := commandName(c.args[0].value)
	switch {
	case name == "popd":
		sc.cwd = ""
	case len(args) == 0 && name == "cd":
		sc.cwd = a.home(sc)
	case len(args) == 0:
		sc.cwd = ""
	case args[0].static() && (args[0].value == "-" || name == "pushd" && (strings.HasPrefix(args[0].value, "+") || strings.HasPrefix(args[0].value, "-"))):
		sc.cwd = ""
	default:
		sc.cwd = a.dirOf(sc, args[0])
	}
}

// shellVars makes variables that builtins set at run time unknown, and
// follows the positional parameters through set -- and shift.
func (a *analyzer) shellVars(c *call, name string) {
	sc := c.sc
	args := c.args[1:]
	switch name {
	case "read":
		p := parseOpts(args, optSpec{short: "adnNptui"})
		if len(p.operands) == 0 {
			sc.setVar("REPLY", value{}, false)
		}
		for _, f := range p.operands {
			sc.setVar(f.value, value{}, false)
		}
		if v, ok := p.val("-a"); ok {
			sc.setVar(v.value, value{}, false)
		}
	case "getopts":
		if len(args) > 1 {
			sc.setVar(args[1].value, value{}, false)
		}
	case "unset":
		for _, f := range args {
			if f.static() && !strings.HasPrefix(f.value, "-") {
				sc.setVar(f.value, value{}, true)
			}
		}
	case "set":
		i := 0
		for i < len(args) && args[i].static() && args[i].value != "--" && (strings.HasPrefix(args[i].value, "-") || strings.HasPrefix(args[i].value, "+")) {
			if args[i].value == "-o" || args[i].value == "+o" {
				i++
			}
			i++
		}
		if i < len(args) && args[i].value == "--" {
			i++
		} else if i == len(args) {
			return
		}
		sc.positional, sc.posKnown = positional(args[min(i, len(args)):])
	case "shift":
		n := 1
		if len(args) > 0 {
			v, err := strconv.Atoi(args[0].value)
			if err != nil || args[0].dynamic || v < 0 {
				sc.posKnown = false
				return
			}
			n = v
		}
		if sc.posKnown {
			sc.positional = sc.positional[min(n, len(sc.positional)):]
		}
	}
}

// echo and printf: their output feeds the next stage of a pipeline, which
// matters when that stage is a shell (echo 'rm -rf /' | sh).
func (a *analyzer) echo(c *call, name string) {
	args := c.args[1:]
	if name == "printf" {
		if len(args) > 1 && args[0].value == "-v" {
			c.sc.setVar(args[1].value, value{}, false)
			return
		}
		if len(args) == 0 || c.io == nil || !allStatic(args) {
			return
		}
		rest := make([]string, 0, len(args)-1)
		for _, f := range args[1:] {
			rest = append(rest, f.value)
		}
		out, _, err := format(args[0].value, rest)
		if err == nil {
			c.io.out = &out
		}
		return
	}
	newline, escapes := true, false
	for len(args) > 0 && args[0].static() && len(args[0].value) > 1 && args[0].value[0] == '-' && strings.Trim(args[0].value[1:], "neE") == "" {
		newline = newline && !strings.Contains(args[0].value, "n")
		escapes = strings.Contains(args[0].value, "e")
		args = args[1:]
	}
	if c.io == nil || !allStatic(args) {
		return
	}
	vals := make([]string, 0, len(args))
	for _, f := range args {
		vals = append(vals, f.value)
	}
	out := strings.Join(vals, " ")
	if escapes {
		out = ansiC(out)
	}
	if newline {
		out += "\n"
	}
	c.io.out = &out
}

// stdinText is the static text on a command's standard input, if known.
func stdinText(c *call) (string, bool) {
	if c.rd != nil && c.rd.stdin != nil {
		return c.rd.stdin.value, c.rd.stdin.static()
	}
	if c.io != nil && c.io.text != nil {
		return *c.io.text, true
	}
	return "", false
}

// cat without files passes its input through.
func (a *analyzer) cat(c *call) {
	if c.io == nil {
		return
	}
	for _, f := range c.args[1:] {
		if f.value != "-" {
			return
		}
	}
	if s, ok := stdinText(c); ok {
		c.io.out = &s
	}
}

// base64 -d of known text: a common way to hide a command from a reader.
func (a *analyzer) base64(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "w", long: []string{"wrap"}})
	if c.io == nil || !p.has("-d", "-D", "--decode") || len(p.operands) > 0 {
		return
	}
	s, ok := stdinText(c)
	if !ok {
		return
	}
	s = strings.Join(strings.Fields(s), "")
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err == nil {
		out := string(b)
		c.io.out = &out
	}
}

func allStatic(fs []field) bool {
	for _, f := range fs {
		if f.dynamic {
			return false
		}
	}
	return true
}
