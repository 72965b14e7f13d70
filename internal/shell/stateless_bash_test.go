package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/safety"
)

// statelessHarness runs a command (the file $1, up to a NUL, as the
// driver's eval gets it) in bash with every name safety gave (the lines of
// $2) a function that logs its name to $3, and no program found (PATH):
// a command bash runs under another name is logged "unknown". It prints
// the shell's state (variables but the ones bash changes by itself,
// functions, aliases, traps, options) before and after, to $3.before and
// $3.after.
const statelessHarness = `IFS= read -r -d '' __c <"$1"
builtin mapfile -t __names <"$2"
__log=$3
for __n in "${__names[@]}"; do
	builtin eval "function $__n { builtin printf '%s\n' \"\$FUNCNAME\" >>\"\$__log\"; }"
done
command_not_found_handle() { builtin printf 'unknown %q\n' "$1" >>"$__log"; return 127; }
__state() {
	while IFS= builtin read -r __l; do
		[[ $__l =~ ^declare\ -[-a-zA-Z]*\ (_|BASH_COMMAND|BASH_LINENO|BASH_ARGC|BASH_ARGV|BASH_SOURCE|BASHPID|EPOCHREALTIME|EPOCHSECONDS|FUNCNAME|LINENO|PIPESTATUS|RANDOM|SECONDS|SRANDOM)= ]] || builtin printf '%s\n' "$__l"
	done <<<"$(builtin declare -p)"
	builtin declare -f; builtin alias -p; builtin trap -p; builtin set -o; builtin shopt -p
}
__state >/dev/null # its own variables (__l, BASH_REMATCH) exist from now
__state >"$__log.before"
builtin eval -- "$__c" >/dev/null 2>&1
builtin wait
__state >"$__log.after"
`

// statelessBashSeeds are commands safety must not find stateless unless
// bash, reading them itself, runs only their names and changes nothing:
// the old lexer fuzz test's seeds, and bytes and forms the parser
// and bash read otherwise (the review of the stateless decision).
var statelessBashSeeds = []string{
	"echo step >> steps.txt", "ls | grep x && ls; echo y", `"ls" -l`, `\ls`, "&>f ls", "ls &>f",
	"awk '{print $1}' f", "grep -E '(a|b)' f", "echo a#b", "go test \\\n ./...", "echo 'a'\"b\"",
	"sleep 0 & echo $!", `find . -exec rm {} \;`, "echo $? $# $@", "[ -f go.mod ] && echo yes",
	"echo \\\r\nprintf -v TMOUT 1", "echo \\\r\neval 'trap : DEBUG'", "ls\r", "ls\r\n", "echo a\rb; ls",
	"echo \\\r\nset -o posix", "ls\f-l", "ls\v-l", "echo a\x00; cd /", "echo a\x01b", "echo a\x7f",
	`$"ls" x`, `echo $"x"`, `echo "a"$"x"`, "echo \"\\\r\n\"; cd /",
}

// FuzzStatelessAgainstBash checks safety's stateless answer against
// bash's own reading of the command: a command found stateless must, run
// by bash with each of its Names a function that logs itself, log only
// Names and leave the shell's state as it was. bash runs with a message
// catalogue that translates $"ls" to eval and $"x" to an assignment, as a
// session could name one. (The old fuzz test compared with the hand
// lexer, on mvdan.cc/sh's own parse: it could not see where bash reads
// the text otherwise.) go test runs the seeds; each input starts a bash.
func FuzzStatelessAgainstBash(f *testing.F) {
	for _, s := range statelessBashSeeds {
		f.Add(s)
	}
	dir := f.TempDir()
	harness := filepath.Join(dir, "harness.bash")
	loc := filepath.Join(dir, "loc", "C.UTF-8", "LC_MESSAGES")
	if err := os.MkdirAll(loc, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(harness, []byte(statelessHarness), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := writeCatalogue(filepath.Join(loc, "e.mo"), map[string]string{"ls": "eval", "x": "${Y:=1}"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		facts := safety.Facts(cmd)
		if !facts.Stateless {
			return
		}
		ran, before, after := runInHarness(t, harness, filepath.Join(dir, "loc"), cmd, facts.Names)
		for _, n := range ran {
			if !slices.Contains(facts.Names, n) {
				t.Fatalf("%q: stateless with names %q, but bash ran %q", cmd, facts.Names, n)
			}
		}
		if before != after {
			t.Fatalf("%q: stateless, but bash's state changed: %s", cmd, lineDiff(before, after))
		}
	})
}

// runInHarness runs cmd in statelessHarness, in a folder of its own, and
// returns what it logged and the states before and after.
func runInHarness(t *testing.T, harness, locDir, cmd string, names []string) (ran []string, before, after string) {
	t.Helper()
	work := t.TempDir()
	cmdFile, namesFile, log := filepath.Join(work, ".cmd"), filepath.Join(work, ".names"), filepath.Join(work, ".log")
	if err := os.WriteFile(cmdFile, append([]byte(cmd), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(namesFile, []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", harness, cmdFile, namesFile, log)
	c.Dir = work
	c.Env = []string{"PATH=/nonexistent", "HOME=" + work, "LC_ALL=C.UTF-8", "TEXTDOMAIN=e", "TEXTDOMAINDIR=" + locDir}
	if out, err := c.CombinedOutput(); err != nil && ctx.Err() != nil {
		t.Fatalf("%q: bash did not end: %v %s", cmd, err, out)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		return string(b)
	}
	logged := strings.TrimSpace(readOr(log)) // no log: nothing ran
	if logged != "" {
		ran = strings.Split(logged, "\n")
	}
	return ran, read(log + ".before"), read(log + ".after")
}

func readOr(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// lineDiff lists the lines only before has (-) and only after has (+).
func lineDiff(before, after string) string {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var out []string
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "-"+l)
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "+"+l)
		}
	}
	return strings.Join(out, "\n")
}
