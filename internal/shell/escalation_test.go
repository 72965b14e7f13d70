package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// These tests play the attacks of the shell's security review: what a
// sandboxed command leaves behind must not run, or be written, outside the
// sandbox in a later command a person approved to run there.

// TestPlantedStateDoesNotReachAnUnsandboxedCommand: a sandboxed command
// defines a function named like the program the person will approve,
// puts a folder of its own first on PATH and sets BASH_ENV and
// PROMPT_COMMAND; the unsandboxed command that follows runs none of that,
// and its result says the state did not carry over (the directory does).
func TestPlantedStateDoesNotReachAnUnsandboxedCommand(t *testing.T) {
	m, ws, outside, _ := sandboxed(t)
	sh := m.Session("s1")
	canary := filepath.Join(outside, "canary")
	evil := filepath.Join(ws, "evil")
	plant := strings.Join([]string{
		"mkdir -p " + evil,
		"printf '#!/bin/sh\\ntouch " + canary + ".path\\n' > " + evil + "/hub && chmod +x " + evil + "/hub",
		"printf 'touch " + canary + ".bashenv\\n' > " + evil + "/env.sh",
		"git() { touch " + canary + ".func; }",
		"alias st='touch " + canary + ".alias'",
		"export PATH=" + evil + ":$PATH BASH_ENV=" + evil + "/env.sh PROMPT_COMMAND='touch " + canary + ".prompt'",
		"export LEFT=over",
		"cd sub",
	}, "; ")
	if res := mustRun(t, sh, plant, RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("planting failed: %s", res.Text())
	}
	res := mustRun(t, sh, `git --version >/dev/null 2>&1; st 2>/dev/null; hub 2>/dev/null; bash -c true; export UNSB=1; echo "left=$LEFT pwd=$PWD"`, RunOptions{Policy: sandbox.Unsandboxed})
	for _, suffix := range []string{".path", ".bashenv", ".func", ".alias"} {
		if _, err := os.Stat(canary + suffix); err == nil {
			t.Errorf("what the sandboxed command planted ran unsandboxed (%s)", suffix)
		}
	}
	if !strings.Contains(res.Output, "left= pwd="+filepath.Join(ws, "sub")) {
		t.Errorf("want no variables but the directory, got %q", res.Output)
	}
	if !hasNote(res, "did not take over the variables") {
		t.Errorf("the result does not say the state did not carry over:\n%s", res.Text())
	}
	// A later sandboxed command starts from the unsandboxed one's state.
	if res := mustRun(t, sh, `echo "left=$LEFT unsb=$UNSB"`, RunOptions{}); !strings.Contains(res.Output, "left= unsb=1") || hasNote(res, "did not take over") {
		t.Errorf("sandboxed command after the unsandboxed one: %s", res.Text())
	}
}

// TestBackgroundJobCannotPlantIntoTheNextBash: a background job of a
// sandboxed command keeps writing code into every state file and request
// it can find in the session's state folders, and puts links to a file
// outside the workspace in place of the output FIFOs, while an
// unsandboxed command runs: none of it runs or is written.
func TestBackgroundJobCannotPlantIntoTheNextBash(t *testing.T) {
	m, _, outside, _ := sandboxed(t)
	sh := m.Session("s1")
	canary := filepath.Join(outside, "canary")
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The job knows its bash's folder ($__olly_d) and looks beside it and
	// in its parent (the session's folder) too.
	job := `d=$__olly_d; p=${d%/*}
( end=$((SECONDS+4)); while ((SECONDS < end)); do
  for dir in "$d" "$p" "$p"/*/; do
    dir=${dir%/}
    for f in state0 state1 state; do printf 'touch ` + canary + `\n' >> "$dir/$f"; done
    for f in "$dir"/o*; do [ -p "$f" ] && ln -sfn ` + victim + ` "$f"; done
  done 2>/dev/null
  sleep 0.01
done ) >/dev/null 2>&1 &
echo planted`
	if res := mustRun(t, sh, job, RunOptions{}); !strings.Contains(res.Output, "planted") {
		t.Fatalf("the job did not start: %s", res.Text())
	}
	time.Sleep(200 * time.Millisecond)
	for i := range 3 {
		res := mustRun(t, sh, "echo run"+strconv.Itoa(i), RunOptions{Policy: sandbox.Unsandboxed})
		if !strings.Contains(res.Output, "run"+strconv.Itoa(i)) {
			t.Errorf("unsandboxed command %d lost its output: %s", i, res.Text())
		}
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("code a sandboxed job planted ran in an unsandboxed bash")
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("an unsandboxed bash wrote through a planted link: %q", b)
	}
}

// TestOllysFunctionsCannotBeReplaced: a command that redefines olly's
// request reader to fake the next command's result (skip it, report
// success) fails, and the next command runs for real.
func TestOllysFunctionsCannotBeReplaced(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s1")
	fake := `__olly_next() {
	IFS= builtin read -r -n 1 -u 10 __olly_w || { __olly_eof=1; return 1; }
	builtin mapfile -d '' -t -u 11 __olly_req
	__olly_tok=${__olly_req[0]} __olly_out=${__olly_req[2]} __olly_sv=0 __olly_cmd='echo faked'
	builtin export OLLY_SHELL_RUN="$__olly_tok"
	__olly_in=1 __olly_bg=$!
	builtin printf 'B\0%s\0' "$__olly_tok"
}; echo defined`
	mustRun(t, sh, fake, RunOptions{})
	res := mustRun(t, sh, "echo real; exit 3", RunOptions{})
	if strings.Contains(res.Output, "faked") || !strings.Contains(res.Output, "real") || res.ExitCode != 3 {
		t.Fatalf("a command replaced olly's functions: %s", res.Text())
	}
	// Nor does a later bash restore them from the saved state.
	res = mustRun(t, sh, "echo again", RunOptions{})
	if !strings.Contains(res.Output, "again") {
		t.Fatalf("after a restart: %s", res.Text())
	}
}

// TestLoopCannotBeReplaced: a command that sets the text of olly's loop
// and leaves the loop (break), so that bash parses the loop again, does
// not get its own loop run: the next command runs for real, and so does
// one in a later bash that restored the saved state.
func TestLoopCannotBeReplaced(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s1")
	fake := `builtin printf "D\\0%s\\0%s\\0%s\\0%s\\0" "$__olly_tok" 0 "" "$PWD"; while builtin read -r -n 1 -u 10 __olly_w; do builtin mapfile -d "" -t -u 3 __olly_req 3</proc/self/fd/11; builtin printf "B\\0%s\\0" "${__olly_req[0]}"; echo faked >"${__olly_req[2]}"; builtin printf "D\\0%s\\0%s\\0%s\\0%s\\0" "${__olly_req[0]}" 0 "" "$PWD"; done`
	mustRun(t, sh, `__olly_loop='`+fake+`'; break`, RunOptions{})
	res := mustRun(t, sh, "echo real; exit 3", RunOptions{})
	if strings.Contains(res.Output, "faked") || !strings.Contains(res.Output, "real") || res.ExitCode != 3 {
		t.Fatalf("a command replaced olly's loop: %s", res.Text())
	}
	// A state that sets it, restored by the next bash, does not either.
	state := filepath.Join(sh.dir, "state")
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatalf("no saved state to restore (%v)", err)
	}
	if err := os.WriteFile(state, append(b, "\ndeclare -r __olly_loop='"+fake+"'\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		res := mustRun(t, sh, `echo "real `+strconv.Itoa(i)+`"; break`, RunOptions{})
		if strings.TrimSpace(res.Output) != "real "+strconv.Itoa(i) {
			t.Fatalf("a restored state replaced olly's loop: %s", res.Text())
		}
	}
}

// TestNextTokenCannotBeGuessed: the next command's marker is not this
// one's with the counter increased (a forged frame needs it).
func TestNextTokenCannotBeGuessed(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s1")
	first := strings.TrimSpace(mustRun(t, sh, `echo "$OLLY_SHELL_RUN"`, RunOptions{}).Output)
	second := strings.TrimSpace(mustRun(t, sh, `echo "$OLLY_SHELL_RUN"`, RunOptions{}).Output)
	dot := strings.LastIndexByte(first, '.')
	n, err := strconv.Atoi(first[dot+1:])
	guess := first[:dot+1] + strconv.Itoa(n+1)
	if first == "" || second == "" || first == second || (err == nil && second == guess) {
		t.Fatalf("tokens %q then %q: the second is guessable", first, second)
	}
	// Nor from the counter in the middle.
	parts := strings.Split(first, ".")
	if len(parts) == 3 && strings.HasPrefix(second, parts[0]+"."+incr(parts[1])+"."+parts[2]) {
		t.Fatalf("tokens %q then %q: the random part repeats", first, second)
	}
}

func incr(s string) string {
	n, _ := strconv.Atoi(s)
	return strconv.Itoa(n + 1)
}

// TestGitMadeLaterIsProtected: a workspace root without .git when the
// session's bash started gets one (git init, or a planted one); the next
// workspace-write command runs in a new bash that keeps it read-only.
func TestGitMadeLaterIsProtected(t *testing.T) {
	m, ws, _, _ := sandboxed(t)
	if m.opts.Sandbox.Status().Git == "" {
		t.Skip("this sandbox does not keep .git read-only here")
	}
	sh := m.Session("s1")
	first := mustRun(t, sh, "echo $$", RunOptions{})
	made := mustRun(t, sh, "mkdir .git && echo '[core]' > .git/config && echo $$", RunOptions{})
	if made.ExitCode != 0 || made.Output != first.Output {
		t.Fatalf("making .git in a root that had none: %s (first bash %s)", made.Text(), first.Output)
	}
	res := mustRun(t, sh, "echo '[core] fsmonitor = evil' >> .git/config; echo $$", RunOptions{})
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); strings.Contains(string(b), "evil") {
		t.Fatalf("a .git made after the bash started stayed writable: %s", res.Text())
	}
	if strings.HasSuffix(res.Output, first.Output) {
		t.Errorf("the command after .git appeared ran in the same bash: %s", res.Text())
	}
}

// TestRestoredStateCannotReplaceOllysFunctions: a saved state holding a
// redefinition of olly's request reader (as a command's own save could
// before) is restored by the next bash without it taking effect.
func TestRestoredStateCannotReplaceOllysFunctions(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s1")
	mustRun(t, sh, "export KEPT=1", RunOptions{})
	mustRun(t, sh, "kill -9 $$", RunOptions{})
	state := filepath.Join(sh.dir, "state")
	b, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(b), "KEPT") {
		t.Fatalf("no saved state to restore (%v)", err)
	}
	fake := "\n__olly_next () \n{ \n    IFS= builtin read -r -n 1 -u 10 __olly_w || { __olly_eof=1; return 1; }; builtin mapfile -d '' -t -u 11 __olly_req; __olly_tok=${__olly_req[0]} __olly_out=${__olly_req[2]} __olly_sv=0 __olly_cmd='echo faked'; builtin export OLLY_SHELL_RUN=\"$__olly_tok\"; __olly_in=1 __olly_bg=$!; builtin printf 'B\\0%s\\0' \"$__olly_tok\"\n}\n"
	if err := os.WriteFile(state, append(b, fake...), 0o600); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sh, `echo "real $KEPT"`, RunOptions{})
	if strings.TrimSpace(res.Output) != "real 1" {
		t.Fatalf("a restored state replaced olly's functions: %s", res.Text())
	}
}

// TestCwdSwappedLaterDoesNotLeadAnUnsandboxedCommandOut: a sandboxed
// command ended inside the workspace and left a job that, afterwards,
// made the name of that directory a link that leaves; the approved
// unsandboxed command that followed started there, outside. Its start
// is checked again (links followed) before it runs.
func TestCwdSwappedLaterDoesNotLeadAnUnsandboxedCommandOut(t *testing.T) {
	m, ws, outside, _ := sandboxed(t)
	sh := m.Session("s")
	job := `mkdir d && cd d && { (sleep 0.5; mv ../d ../e && ln -s ` + outside + ` ../d) >/dev/null 2>&1 & }`
	if res := mustRun(t, sh, job, RunOptions{}); res.ExitCode != 0 || res.CwdReset {
		t.Fatalf("setup: %s", res.Text())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if fi, err := os.Lstat(filepath.Join(ws, "d")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not make the link")
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := mustRun(t, sh, "pwd -P", RunOptions{Policy: sandbox.Unsandboxed})
	realWS, _ := filepath.EvalSymlinks(ws)
	if res.Output != realWS || !hasNote(res, "outside the workspace") {
		t.Errorf("the unsandboxed command started in %q, want the primary root %s: %s", res.Output, realWS, res.Text())
	}
}
