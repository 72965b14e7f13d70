package safety

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// bashSafeNames are the programs and builtins TestStatelessAgainstBash
// runs for real (nothing that writes outside its folder or runs long).
var bashSafeNames = []string{"echo", "printf", "test", "[", "true", "false", "pwd", ":", "cat", "grep", "awk", "ls", "wc", "sort"}

// bashStateScript runs the commands $3… one after another in folder $1
// of a bash whose state holds what makes words assign (a nameref to an
// array element, positional parameters that are a subscript and -v), and
// prints what olly saves (variables, functions, aliases, options, traps,
// the directory) before them and after each, each ended by a line
// "--end--" ($2 is an empty folder: no fork per command but the
// command's own).
const bashStateScript = `__dir=$1; shift 2; __cmds=("$@")
cd "$__dir" || exit 9
declare -n r='a[rx=1]'; a=(1 2); f() { :; }; x=1; set -- 'a[px=1]' -v
__snap() { declare -p; declare -f; alias -p; set -o; shopt; trap -p; echo "PWD=$PWD"; printf -- '--%s--\n' end; }
__snap
for __cmd in "${__cmds[@]}"; do
	eval -- "$__cmd" >/dev/null 2>&1 </dev/null
	__snap
done
`

// bashVolatile are the lines of bashStateScript's snapshots that change
// by themselves, or are the script's own.
var bashVolatile = regexp.MustCompile(`^declare (-[-a-zA-Z]+ )?(BASH_LINENO|LINENO|RANDOM|SRANDOM|SECONDS|EPOCHREALTIME|EPOCHSECONDS|_|PIPESTATUS|BASH_COMMAND|BASHPID|BASH_ARGC|BASH_ARGV|BASH_SOURCE|FUNCNAME|BASH_SUBSHELL|__cmd)=`)

// stateDiff returns the lines of after that are not in before, and those
// of before that are not in after, volatile ones left out.
func stateDiff(before, after string) string {
	keep := func(s string) []string {
		return slices.DeleteFunc(strings.Split(s, "\n"), bashVolatile.MatchString)
	}
	b, a := keep(before), keep(after)
	var d []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			d = append(d, "+"+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			d = append(d, "-"+l)
		}
	}
	return strings.Join(d, "\n")
}

// TestStatelessAgainstBash runs every stateless command of the table whose
// names are harmless to run, and more that put assignments where the rule
// allows words, in a real bash, and finds the state unchanged; the
// stateful commands that do change it there show that the check can fail.
func TestStatelessAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	// run runs cmds in one bash and returns how the state differs from
	// the start after each ("" for none).
	run := func(cmds ...string) []string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("a b\nc d\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		args := append([]string{"--norc", "--noprofile", "-c", bashStateScript, "bash", dir, t.TempDir()}, cmds...)
		b, err := exec.CommandContext(ctx, bash, args...).Output()
		snaps := strings.Split(string(b), "--end--\n")
		if err != nil || len(snaps) != len(cmds)+2 {
			t.Fatalf("%v: %d snapshots for %d commands: %.2000s", err, len(snaps)-1, len(cmds), b)
		}
		var diffs []string
		for _, s := range snaps[1 : len(cmds)+1] {
			diffs = append(diffs, stateDiff(snaps[0], s))
		}
		return diffs
	}
	cmds := []string{
		"echo $1 $2 $? $# $@ $* $-", "printf '%s\\n' 'a[rx=2]' -- \"-v\"x", "test 'a[rx=3]'", "[ -n 'a[rx=4]' ]",
		"cat 'a[rx=5]' in.txt", "echo a[rx=6] {a,b}[rx=7]", "ls >|f; cat <f", "&>f echo x",
		"printf '%d' 'rx=8'", "test 1 -eq 'rx=9'", "echo ~ ~+ ~-", "pwd -P", "sort in.txt | wc -l &",
	}
	for cmd, stateless := range statelessCases {
		if stateless {
			cmds = append(cmds, cmd)
		}
	}
	var ran []string
	for _, cmd := range cmds {
		f := Facts(cmd)
		if f.Stateless && !slices.ContainsFunc(f.Names, func(n string) bool { return !slices.Contains(bashSafeNames, n) }) {
			ran = append(ran, cmd)
		}
	}
	t.Logf("%d stateless commands ran in bash", len(ran))
	if len(ran) < 30 {
		t.Errorf("only %d commands ran: the table lost its cases", len(ran))
	}
	for i, got := range run(ran...) {
		if got != "" {
			t.Errorf("%q, judged stateless, changed the state: %s", ran[i], got)
		}
	}
	for _, cmd := range []string{"test -v 'a[rx=2]'", "echo $r", "[ -v $1 ]", "printf -v x y", "echo ${y:=2}", "cd .."} {
		if Facts(cmd).Stateless {
			t.Errorf("%q: stateless", cmd)
		}
		if got := run(cmd); got[0] == "" {
			t.Errorf("%q did not change the state: the check cannot fail", cmd)
		}
	}
}
