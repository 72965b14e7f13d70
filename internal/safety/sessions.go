package safety

import (
	"slices"
	"strings"
)

// Commands that run a command line later or elsewhere on this machine:
// terminal multiplexers, at/batch, script. Their command is analysed like
// bash -c's.

// screen runs the command after its options in a new window.
func (a *analyzer) screen(c *call) traits {
	p := parseOpts(c.args[1:], optSpec{short: "cSpehTsX", posix: true})
	if p.rest >= len(c.args)-1 {
		return 0
	}
	return a.run(c.with(c.args[1+p.rest:]))
}

// tmux new-session, new-window and split-window take a shell command;
// send-keys types one into a pane.
func (a *analyzer) tmux(c *call) traits {
	args := c.args[1:]
	gp := parseOpts(args, optSpec{short: "LSfc", posix: true})
	if gp.rest >= len(args) {
		return 0
	}
	sub, rest := args[gp.rest].value, args[gp.rest+1:]
	p := parseOpts(rest, optSpec{short: "cstnFeEnxyNlpTP", posix: true})
	ops := rest[min(p.rest, len(rest)):]
	switch sub {
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp":
		if len(ops) > 0 {
			return a.subshell(c, joinFields(ops), nil)
		}
	case "send-keys", "send":
		var keys []field
		for _, f := range ops {
			if !slices.Contains([]string{"Enter", "C-m", "KPEnter"}, f.value) {
				keys = append(keys, f)
			}
		}
		if len(keys) > 0 {
			return a.subshell(c, joinFields(keys), nil)
		}
	}
	return 0
}

// at and batch read the commands to schedule from stdin or -f FILE.
func (a *analyzer) at(c *call) traits {
	a.add(Medium, "scheduled-command", sentence("Schedules commands to run later (%s)", commandName(c.args[0].value)), c.text, c.args[0].src)
	p := parseOpts(c.args[1:], optSpec{short: "qfmMtdl"})
	if p.has("-l", "-d", "-r", "-c") {
		return 0
	}
	if f, ok := p.val("-f"); ok {
		a.scriptFile(c, f, true)
		return 0
	}
	if code, ok := a.stdinCode(c, "at"); ok {
		return a.subshell(c, code, nil)
	}
	return 0
}

// scriptCmd: script -c CMD [FILE] runs CMD and records the session to FILE.
func (a *analyzer) scriptCmd(c *call) traits {
	p := parseOpts(c.args[1:], optSpec{short: "cEIOBT", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing"}})
	for _, f := range p.operands[:min(1, len(p.operands))] {
		a.judge(c.sc, c.text, f, pathOp{effect: effOverwrite})
	}
	if code, ok := p.val("-c", "--command"); ok {
		return a.subshell(c, code, nil)
	}
	return 0
}

// extract judges where tar -x and unzip write: every path below the
// target directory (the current one by default).
func (a *analyzer) extract(c *call, name string) {
	args := c.args[1:]
	dir := literal(".")
	extracting := name == "unzip"
	if name == "unzip" {
		p := parseOpts(args, optSpec{short: "dxP"})
		if p.has("-l", "-t", "-v", "-Z", "-p") {
			return
		}
		if d, ok := p.val("-d"); ok {
			dir = d
		}
	} else {
		if len(args) > 0 && args[0].static() && !strings.HasPrefix(args[0].value, "-") {
			// Old style: tar xzf archive, the first word is the flags.
			args = append([]field{literal("-" + args[0].value)}, args[1:]...)
		}
		p := parseOpts(args, optSpec{short: "fCTXbgHKLNV", long: []string{"file", "directory", "files-from", "exclude-from", "blocking-factor", "listed-incremental", "format", "starting-file", "newer", "label", "transform", "xform"}})
		extracting = p.has("-x", "--extract", "--get")
		if !extracting {
			a.tarRemoves(c, p.operands)
		}
		if d, ok := p.val("-C", "--directory"); ok {
			dir = d
		}
	}
	if extracting {
		a.judge(c.sc, c.text, treeOf(dir), pathOp{effect: effOverwrite})
	}
}
