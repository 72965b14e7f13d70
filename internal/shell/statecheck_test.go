package shell

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

// A command olly runs without the save after it must leave everything the
// save would have written as it was. These tests run commands through the
// real driver, under both sandboxed policies, after a state that makes a
// program's name something else (a function or an alias of the session,
// defined by a read-only or a workspace-write command, a PATH entry, a
// hash table entry, a disabled builtin), and check: when olly skipped the
// save, the bash's variables, functions, aliases, traps, options and
// directory are what they were just before; when the command changed them,
// the save was made, and the next command in the other bash sees the
// change (as data from a read-only bash: functions and aliases never cross
// to the workspace-write one).

// stateProbe prints what the save covers, and traps, options and the
// directory, which a stateless command must not change either.
const stateProbe = `builtin declare -p; builtin declare -f; builtin alias -p; builtin trap -p; builtin set -o; builtin shopt -p; builtin printf 'cwd=%s\n' "$PWD"`

// probeSkip matches the declare -p lines of variables bash or olly's
// driver change by themselves around every command. BASH_CMDS is bash's
// hash table, which running any program fills; it is not state a restart
// needs (a new bash finds the same program on PATH; an entry "hash -p"
// set is saved with that command, which is stateful).
var probeSkip = regexp.MustCompile(`^declare -[-a-zA-Z]* (_|__olly_[A-Za-z_]*|OLLY_SHELL_RUN|BASH_COMMAND|BASH_LINENO|BASH_ARGC|BASH_ARGV|BASH_SOURCE|BASH_CMDS|BASHPID|EPOCHREALTIME|EPOCHSECONDS|FUNCNAME|LINENO|PIPESTATUS|RANDOM|SECONDS|SRANDOM)(=|$)`)

func probeState(t *testing.T, sh *Shell, p sandbox.Policy) string {
	t.Helper()
	res := mustRun(t, sh, stateProbe, RunOptions{Policy: p})
	if res.ExitCode != 0 || res.Artifact != "" {
		t.Fatalf("probe: %s", res.Text())
	}
	var keep []string
	for _, l := range strings.Split(res.Output, "\n") {
		if !probeSkip.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// statelessCase: setup, then the command x; saved says whether olly must
// save after x (false: it must skip the save, and x must change nothing);
// out is x's expected output, if set; then check runs in the other
// bash and must print want.
type statelessCase struct {
	name         string
	setup        []polCmd
	x            polCmd
	saved        bool
	out          string
	check, want  string
	checkPolicy  sandbox.Policy
	noFuncInWant string // a function that must not exist where check runs
}

type polCmd struct {
	cmd string
	p   sandbox.Policy
}

var (
	ro = sandbox.ReadOnly
	ww = sandbox.WorkspaceWrite
)

func statelessCases() []statelessCase {
	fakeLS := `mkdir -p bin && printf '#!/bin/sh\necho fake-ls\n' > bin/ls && chmod +x bin/ls && export PATH="$PWD/bin:$PATH"`
	return []statelessCase{
		{name: "function from a write command, read-only ls",
			setup: []polCmd{{`ls() { export LSRAN=1; set -o posix; trap 'echo t' USR1; alias ll=ls; }`, ww}},
			x:     polCmd{"ls", ro}, saved: true, check: `echo "lsran=$LSRAN"`, checkPolicy: ww, want: "lsran=1"},
		{name: "function from a read-only command, read-only ls",
			setup: []polCmd{{`ls() { export LSRAN=2; }`, ro}},
			x:     polCmd{"ls", ro}, saved: true, check: `echo "lsran=$LSRAN"`, checkPolicy: ww, want: "lsran=2", noFuncInWant: "ls"},
		{name: "function from a read-only command, write ls runs the program",
			setup: []polCmd{{`ls() { export LSRAN=3; }`, ro}, {"true", ww}},
			x:     polCmd{"ls -d .", ww}, saved: false, out: ".", check: `echo "lsran=${LSRAN-unset}"`, checkPolicy: ro, want: "lsran=unset"},
		{name: "alias from a write command",
			setup: []polCmd{{`alias ls='export LSA=1; echo aliased'`, ww}},
			x:     polCmd{"ls", ro}, saved: true, out: "aliased", check: `echo "lsa=$LSA"`, checkPolicy: ww, want: "lsa=1"},
		{name: "alias from a read-only command",
			setup: []polCmd{{`alias cat='export CA=1; echo aliased'`, ro}},
			x:     polCmd{"cat /dev/null", ro}, saved: true, out: "aliased /dev/null", check: `echo "ca=$CA"`, checkPolicy: ww, want: "ca=1"},
		{name: "backslash name is still the function",
			setup: []polCmd{{`ls() { export LSB=1; }`, ww}},
			x:     polCmd{`\ls`, ro}, saved: true, check: `echo "lsb=$LSB"`, checkPolicy: ww, want: "lsb=1"},
		{name: "quoted name is still the function",
			setup: []polCmd{{`ls() { export LSQ=1; }`, ww}},
			x:     polCmd{`"ls"`, ro}, saved: true, check: `echo "lsq=$LSQ"`, checkPolicy: ww, want: "lsq=1"},
		{name: "second name of a list is a function",
			setup: []polCmd{{`grep() { export G=1; }`, ww}},
			x:     polCmd{"ls && grep x /dev/null", ro}, saved: true, check: `echo "g=$G"`, checkPolicy: ww, want: "g=1"},
		{name: "harmless builtin's name is a function",
			setup: []polCmd{{`echo() { export EF=1; }`, ww}},
			x:     polCmd{"echo x", ro}, saved: true, check: `printf '%s\n' "ef=$EF"`, checkPolicy: ww, want: "ef=1"},
		{name: "command ls skips the function (saved all the same)",
			setup: []polCmd{{`ls() { export LSC=1; }`, ww}},
			x:     polCmd{"command ls -d .", ro}, saved: true, out: ".", check: `echo "lsc=${LSC-unset}"`, checkPolicy: ww, want: "lsc=unset"},
		{name: "builtin",
			x: polCmd{"builtin echo x", ro}, saved: true, out: "x", check: `echo ok`, checkPolicy: ww, want: "ok"},
		{name: "function defined and removed",
			setup: []polCmd{{`ls() { export LSR=1; }; unset -f ls`, ro}},
			x:     polCmd{"ls -d .", ro}, saved: false, out: ".", check: `echo "lsr=${LSR-unset}"`, checkPolicy: ww, want: "lsr=unset"},
		{name: "disabled builtin runs the program",
			setup: []polCmd{{"enable -n echo", ro}},
			x:     polCmd{"echo x", ro}, saved: false, out: "x", check: `builtin echo ok`, checkPolicy: ww, want: "ok"},
		{name: "PATH entry of a write command, read-only",
			setup: []polCmd{{fakeLS, ww}},
			x:     polCmd{"ls", ro}, saved: false, out: "fake-ls", check: `echo ok`, checkPolicy: ww, want: "ok"},
		{name: "PATH entry of a write command, write",
			setup: []polCmd{{fakeLS, ww}},
			x:     polCmd{"ls", ww}, saved: false, out: "fake-ls", check: `echo ok`, checkPolicy: ro, want: "ok"},
		{name: "hash table entry",
			setup: []polCmd{{"hash -p /bin/echo ls", ro}},
			x:     polCmd{"ls hashed", ro}, saved: false, out: "hashed", check: `echo ok`, checkPolicy: ww, want: "ok"},
		{name: "source",
			setup: []polCmd{{`echo 'export SRC=1' > s.sh`, ww}},
			x:     polCmd{"source s.sh", ro}, saved: true, check: `echo "src=$SRC"`, checkPolicy: ww, want: "src=1"},
		{name: "dot",
			setup: []polCmd{{`echo 'export DOT=1' > d.sh`, ww}},
			x:     polCmd{". d.sh", ro}, saved: true, check: `echo "dot=$DOT"`, checkPolicy: ww, want: "dot=1"},
		{name: "eval",
			x: polCmd{"eval 'EV=1'", ro}, saved: true, check: `echo "ev=$EV"`, checkPolicy: ww, want: "ev=1"},
	}
}

func TestStatelessSkipLeavesStateAlone(t *testing.T) {
	for _, c := range statelessCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, _, _, _ := sandboxedWith(t, func(o *ManagerOptions) { o.Limits = Limits{Head: 5000, Tail: 5000, MaxLineBytes: 1 << 16} })
			sh := m.Session("s")
			mustRun(t, sh, "export BASE=1", RunOptions{Policy: ww})
			for _, s := range c.setup {
				if res := mustRun(t, sh, s.cmd, RunOptions{Policy: s.p}); res.ExitCode != 0 {
					t.Fatalf("setup %q: %s", s.cmd, res.Text())
				}
			}
			// The probe is a state-changing command: run in x's bash just
			// before x, it would make that bash's save the newest, and so
			// hand over whatever x's bash saved later, whether or not olly
			// counts a save bash makes on its own (an alias or a function
			// among x's names). It runs only where x must skip the save.
			var before string
			if !c.saved {
				before = probeState(t, sh, c.x.p)
			}
			res := mustRun(t, sh, c.x.cmd, RunOptions{Policy: c.x.p})
			saved := savedAfter(sh)
			if c.out != "" && res.Output != c.out {
				t.Errorf("%q: %s, want %q", c.x.cmd, res.Text(), c.out)
			}
			if saved != c.saved {
				t.Fatalf("%q: saved %v, want %v", c.x.cmd, saved, c.saved)
			}
			if !saved {
				if after := probeState(t, sh, c.x.p); after != before {
					t.Errorf("%q skipped the save but changed the state: %s", c.x.cmd, lineDiff(before, after))
				}
			}
			// When x saved, the check comes right after it: the other bash
			// sees the change only if x's own save is handed over.
			if got := mustRun(t, sh, c.check, RunOptions{Policy: c.checkPolicy}); got.Output != c.want {
				t.Errorf("after %q, %q in the other bash: %s, want %q", c.x.cmd, c.check, got.Text(), c.want)
			}
			if f := c.noFuncInWant; f != "" {
				if got := mustRun(t, sh, "declare -F "+f+" || echo none", RunOptions{Policy: c.checkPolicy}); got.Output != "none" {
					t.Errorf("a read-only function %s reached the %s bash: %s", f, c.checkPolicy, got.Text())
				}
			}
		})
	}
}

// savedAfter reports whether the driver announced a save after the
// command olly ran last (its D frame's "s" flag).
func savedAfter(sh *Shell) bool {
	return sh.proc != nil && strings.HasPrefix(sh.proc.saveTok, fmt.Sprintf("%s.%d.", sh.token, sh.seq))
}
