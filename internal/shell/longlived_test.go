package shell

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// TestOneBashPerSession: commands run in the same bash, which keeps
// everything a terminal keeps between them.
func TestOneBashPerSession(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	first := mustRun(t, sh, "echo $$", RunOptions{})
	second := mustRun(t, sh, "echo $$; umask 027", RunOptions{})
	if first.Output == "" || first.Output != second.Output {
		t.Fatalf("commands ran in different shells: %q then %q", first.Output, second.Output)
	}
	if res := mustRun(t, sh, "umask", RunOptions{}); res.Output != "0027" {
		t.Errorf("umask = %q, want 0027 (kept like in a terminal)", res.Output)
	}
}

// TestShellEndingCommands: whatever a command does to its bash, the next
// command runs, in a working shell, with the state before (or, when bash
// could save, after) the command.
func TestShellEndingCommands(t *testing.T) {
	cases := []struct {
		name, command, want string
	}{
		{"exit", "cd sub; export A=1; exit 3", "sub 1"},
		{"exit from a function", "f() { cd sub; export A=1; exit 0; }; f", "sub 1"},
		{"set -e failure", "set -e; cd sub; export A=1; false", "sub 1"},
		{"exec replaces bash", "cd sub; export A=1; exec sleep 0", "ROOT unset"},
		{"kill $$", "cd sub; export A=1; kill -KILL $$", "ROOT unset"},
		// (wait, not a sleep: a starved bash could finish a sleep 1 before
		// the job's kill, and save.)
		{"kill $$ from the background", "(sleep 0.2; kill -KILL $$) & cd sub; export A=1; wait", "ROOT unset"},
		{"break out of olly's loop", "cd sub; export A=1; break 9", "sub 1"},
		{"continue olly's loop", "cd sub; export A=1; continue", "sub 1"},
		{"return outside a function", "cd sub; export A=1; return 4", "sub 1"},
		{"trap on TERM", "trap 'echo no' TERM; cd sub; export A=1", "sub 1"},
		{"readonly variable", "readonly RO=1; cd sub; export A=1", "sub 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, ws := newTestManager(t, nil)
			sh := m.Session("s")
			res := mustRun(t, sh, tc.command, RunOptions{Timeout: 20 * time.Second})
			if res.TimedOut {
				t.Fatalf("the command hung the shell: %s", res.Text())
			}
			want := strings.Replace(tc.want, "ROOT", filepath.Base(ws), 1)
			for range 2 {
				next := mustRun(t, sh, `echo "${PWD##*/} ${A-unset}"`, RunOptions{Timeout: 20 * time.Second})
				if next.Output != want || next.ExitCode != 0 {
					t.Fatalf("next command: %q (exit %d), want %q\nfirst: %s\nnext: %s", next.Output, next.ExitCode, want, res.Text(), next.Text())
				}
			}
		})
	}
}

// TestNoexecEndsAtTheTimeout: after a set -n olly cannot see (eval'd)
// bash executes nothing more, not even olly's loop, so the command runs
// until its timeout; then the shell is replaced. (One it sees runs in a
// subshell: noexec_test.go.)
func TestNoexecEndsAtTheTimeout(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	res := mustRun(t, sh, `cd sub; eval "set -n"`, RunOptions{Timeout: 500 * time.Millisecond})
	if !res.TimedOut {
		t.Fatalf("%s", res.Text())
	}
	if next := mustRun(t, sh, "echo ok", RunOptions{}); next.Output != "ok" {
		t.Errorf("next: %s", next.Text())
	}
}

// TestHostileCommandsCannotDesyncTheShell: a command that prints olly's
// frames, writes forged frames into the shell's channel, steals its
// requests or closes its descriptors cannot make olly hang, crash or give
// the next command's result to the wrong command.
func TestHostileCommandsCannotDesyncTheShell(t *testing.T) {
	requireProc(t)
	// The fds of bash that are pipes, other than the command's output:
	// olly's channels (and bash's saved copies of them).
	pipes := `for f in /proc/$$/fd/*; do [[ $(readlink $f) == pipe:* ]] && echo ${f##*/}; done`
	cases := []struct{ name, command string }{
		{"prints frames", `printf 'D\0x\0000\0\0/\0S\0x\0001\0B\0x\0'; echo`},
		{"forges frames", `for fd in $(` + pipes + `); do printf 'D\0forged\0000\0\0/\0' >&$fd; done 2>/dev/null; sleep 0.2; echo done`},
		{"forges garbage", `for fd in $(` + pipes + `); do head -c 100000 /dev/urandom >&$fd; done 2>/dev/null; echo done`},
		{"steals requests", `for fd in $(` + pipes + `); do (cat <&$fd >/dev/null &) ; done 2>/dev/null; echo done`},
		{"closes descriptors", `for fd in $(` + pipes + `) 0 1 2; do eval "exec $fd>&-"; done; echo gone`},
		{"redirects descriptors", `exec >/dev/null 2>&1 </dev/zero; exec 3>/dev/null 4>/dev/null; echo hidden`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestManager(t, nil)
			sh := m.Session("s")
			res := mustRun(t, sh, tc.command, RunOptions{Timeout: 10 * time.Second})
			if res.TimedOut {
				t.Errorf("the command timed out: %s", res.Text())
			}
			for i := range 3 {
				want := "next " + strconv.Itoa(i)
				next := mustRun(t, sh, "echo "+want, RunOptions{Timeout: 10 * time.Second})
				if next.Output != want || next.ExitCode != 0 {
					t.Fatalf("command %d after it: %s\nthe hostile one: %s", i, next.Text(), res.Text())
				}
			}
		})
	}
}

// TestEarlierJobsOutliveALaterTimeout: stopping a command stops its own
// processes and the shell, never what earlier commands left running.
func TestEarlierJobsOutliveALaterTimeout(t *testing.T) {
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	res := mustRun(t, sh, "sleep 1000 >/dev/null 2>&1 & echo $!", RunOptions{})
	pids := pidsIn(t, res.Output)
	if len(pids) != 1 {
		t.Fatalf("no job: %s", res.Text())
	}
	stopped := mustRun(t, sh, "sleep 1000", RunOptions{Timeout: 300 * time.Millisecond})
	if !stopped.TimedOut {
		t.Fatalf("not timed out: %s", stopped.Text())
	}
	if !alive(pids[0]) {
		t.Error("the earlier command's job was killed by the later command's timeout")
	}
	if next := mustRun(t, sh, "echo ok", RunOptions{}); next.Output != "ok" || len(next.Background) != 0 {
		t.Errorf("next: %s", next.Text())
	}
	_ = sh.Close()
	if !waitGone(pids[0], 2*time.Second) {
		t.Errorf("Close left %d running", pids[0])
	}
}

// TestNewBashWhenTheSandboxChanges: a bash's sandbox is fixed when it
// starts, so a command that needs another one (another policy, more
// writable places, a new entry in a directory the rules split) gets a new
// bash, with the session's state carried over.
func TestNewBashWhenTheSandboxChanges(t *testing.T) {
	m, _, outside, _ := sandboxed(t)
	sh := m.Session("s")
	pid := func(opts RunOptions) string { return mustRun(t, sh, "echo $$", opts).Output }
	mustRun(t, sh, "cd sub; export KEPT=1", RunOptions{})
	first := pid(RunOptions{})
	if pid(RunOptions{}) != first {
		t.Fatal("same sandbox, yet a new bash")
	}
	extra := RunOptions{Writable: []string{outside}}
	second := pid(extra)
	if second == first {
		t.Fatal("more writable places, yet the same bash")
	}
	res := mustRun(t, sh, `echo "${PWD##*/} $KEPT" >'`+filepath.Join(outside, "w")+`'`, extra)
	if res.ExitCode != 0 {
		t.Fatalf("writing a granted place failed: %s", res.Text())
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "w")); string(b) != "sub 1\n" {
		t.Errorf("state after the switch: %q", b)
	}
}

// TestNewEntriesInASplitRootAreReadable: a workspace root that holds a
// protected path is granted entry by entry; a file made in it after the
// session's bash started (by olly's own tools, say), or replaced by a
// rename, is readable all the same: the next command gets fresh rules.
func TestNewEntriesInASplitRootAreReadable(t *testing.T) {
	sb := sandbox.New("")
	if !sb.Status().Active() {
		t.Skipf("no sandbox here (%s)", sb.Status().Reason)
	}
	m, ws := newTestManager(t, func(o *ManagerOptions) {
		o.Sandbox = sb
		o.SandboxSpec = sandbox.Spec{DenyRead: []string{filepath.Join(o.Roots[0], ".secret")}}
	})
	if err := os.Mkdir(filepath.Join(ws, ".secret"), 0o700); err != nil {
		t.Fatal(err)
	}
	sh := m.Session("s")
	if res := mustRun(t, sh, "cat .secret/x 2>&1; echo started", RunOptions{}); !strings.Contains(res.Output, "started") {
		t.Fatalf("%s", res.Text())
	}
	late := filepath.Join(ws, "late.txt")
	if err := os.WriteFile(late, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := mustRun(t, sh, "cat late.txt", RunOptions{}); res.Output != "new" {
		t.Errorf("a file made after the shell started: %s", res.Text())
	}
	tmp := filepath.Join(ws, "late.tmp")
	if err := os.WriteFile(tmp, []byte("replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, late); err != nil {
		t.Fatal(err)
	}
	if res := mustRun(t, sh, "cat late.txt", RunOptions{}); res.Output != "replaced" {
		t.Errorf("a file replaced by a rename: %s", res.Text())
	}
}

func TestSandboxSpecListsEachRootOnce(t *testing.T) {
	m, ws, _, _ := sandboxed(t)
	sh := m.Session("s")
	mustRun(t, sh, "true", RunOptions{})
	spec, _ := pinSpec(sh.wantSpec(sandbox.WorkspaceWrite, []string{ws, ws + "/"}))
	n := 0
	for _, p := range spec.Writable {
		if p == ws {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the primary root is in the writable list %d times: %q", n, spec.Writable)
	}
}

func TestStampsSeeNewEntries(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"kept", "removed", "replaced"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := stamp(dir)
	st.entries = listEntries(dir)
	missing := stamp(filepath.Join(dir, "cache"))
	stamps := []*dirStamp{&st, &missing}
	if stampsChanged(stamps) {
		t.Fatal("changed without a change")
	}
	time.Sleep(10 * time.Millisecond) // a coarse clock must tick
	if err := os.Remove(filepath.Join(dir, "removed")); err != nil {
		t.Fatal(err)
	}
	if stampsChanged(stamps[:1]) {
		t.Error("an entry removed counts as a change")
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "replaced")); err != nil {
		t.Fatal(err)
	}
	if !stampsChanged(stamps[:1]) {
		t.Error("an entry replaced by a rename went unnoticed")
	}
	if err := os.Mkdir(filepath.Join(dir, "cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !stampsChanged(stamps[1:]) {
		t.Error("a missing place that now exists went unnoticed")
	}
}

// TestMissingPlacesWatchedThroughTheirFolder: allowed places that are
// missing are watched through the folder nearest to them that exists,
// one stamp for those that share it; each one appearing is still seen,
// also after that folder changed for another reason.
func TestMissingPlacesWatchedThroughTheirFolder(t *testing.T) {
	home := t.TempDir()
	deep, flat := filepath.Join(home, ".cargo", "registry"), filepath.Join(home, ".npm")
	stamps := missingStamps([]string{deep, flat})
	if len(stamps) != 1 || stamps[0].path != home {
		t.Fatalf("stamps %+v, want one for %s", stamps, home)
	}
	if stampsChanged(stamps) {
		t.Fatal("changed without a change")
	}
	time.Sleep(10 * time.Millisecond) // a coarse clock must tick
	if err := os.WriteFile(filepath.Join(home, ".bash_history"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if stampsChanged(stamps) {
		t.Error("an unrelated entry counts as a change")
	}
	if err := os.Mkdir(filepath.Join(home, ".cargo"), 0o700); err != nil {
		t.Fatal(err)
	}
	if stampsChanged(stamps) {
		t.Error("a folder on the way to a missing place counts as a change")
	}
	if err := os.Mkdir(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	if !stampsChanged(stamps) {
		t.Error("a missing place that now exists under a folder made since went unnoticed")
	}
	again := missingStamps([]string{flat})
	if err := os.Symlink(t.TempDir(), flat); err != nil {
		t.Fatal(err)
	}
	if !stampsChanged(again) {
		t.Error("a missing place that now exists (a link) went unnoticed")
	}
}

func TestReadFrame(t *testing.T) {
	in := "B\x00t.1\x00D\x00t.1\x000\x00b\x00/a\nb\x00S\x00t.1\x001\x00"
	br := bufio.NewReader(strings.NewReader(in))
	var got []frame
	for {
		f, err := readFrame(br)
		if err != nil {
			break
		}
		got = append(got, f)
	}
	want := []frame{{kind: 'B', token: "t.1"}, {kind: 'D', token: "t.1", bg: true, pwd: "/a\nb"}, {kind: 'S', token: "t.1", slot: 1}}
	if !slices.Equal(got, want) {
		t.Errorf("frames %+v, want %+v", got, want)
	}
	for _, bad := range []string{"X\x00", "D\x00t\x00x\x00\x00/\x00", "S\x00t\x002\x00", "B\x00\x00", strings.Repeat("a", maxFrameField+2)} {
		if _, err := readFrame(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readFrame(%q) accepted it", bad)
		}
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("B\x00t.1\x00D\x00t.1\x000\x00b\x00/a\x00S\x00t.1\x001\x00"))
	f.Add([]byte("D\x00\x00\x00\x00"))
	f.Add([]byte("V\x005\x002\x00B\x00t.1\x00"))
	f.Add([]byte("V\x00x\x00\x00"))
	f.Add([]byte("f\ng\nB\x00t.1\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(strings.NewReader(string(b)))
		for range 100 {
			fr, err := readFrame(br)
			if err != nil {
				break
			}
			if fr.token == "" || (fr.kind == 'S' && fr.slot != 0 && fr.slot != 1) {
				t.Fatalf("accepted %+v", fr)
			}
		}
		if rec, ok := parseExitRecord(b); ok && (rec.token == "" || (rec.slot != 0 && rec.slot != 1)) {
			t.Fatalf("accepted exit record %+v", rec)
		}
	})
}

// TestVersionFrame: the driver's first frame says which bash it is; a
// version that is not two numbers is not a frame.
func TestVersionFrame(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("V\x005\x002\x00"))
	if f, err := readFrame(br); err != nil || f.kind != 'V' || f.version != [2]int{5, 2} {
		t.Errorf("readFrame = %+v, %v", f, err)
	}
	for _, bad := range []string{"V\x005\x00\x00", "V\x00five\x002\x00", "V\x005\x00"} {
		if f, err := readFrame(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readFrame(%q) = %+v, want an error", bad, f)
		}
	}
}

// TestOneBashPerStart: the session's first command starts one bash (the
// session's own, which reports its version itself), not a second one
// just to ask which bash it is.
func TestOneBashPerStart(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	wrapper := filepath.Join(dir, "bash")
	real, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := fmt.Sprintf("#!/bin/sh\necho start >> %q\nexec %q \"$@\"\n", log, real)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m, _ := newTestManager(t, func(o *ManagerOptions) { o.Shell = wrapper })
	if res := mustRun(t, m.Session("s"), "echo hi", RunOptions{}); res.Output != "hi" {
		t.Fatalf("%s", res.Text())
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "start"); n != 1 {
		t.Errorf("%d bash processes started for the first command, want 1", n)
	}
}

// TestLongLivedShellWithReadOnlyGit: a workspace with a .git, whose bash
// the sandbox starts however it keeps .git read-only (the helper in
// namespaces of its own, or rules split around it), keeps its state
// between commands and cannot write .git.
func TestLongLivedShellWithReadOnlyGit(t *testing.T) {
	sb := sandbox.New("")
	if !sb.Status().Active() {
		t.Skipf("no sandbox here (%s)", sb.Status().Reason)
	}
	m, ws := newTestManager(t, func(o *ManagerOptions) { o.Sandbox = sb })
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := m.Session("s")
	first := mustRun(t, sh, "cd sub; export G=1; echo $$", RunOptions{})
	if first.ExitCode != 0 {
		t.Fatalf("%s", first.Text())
	}
	res := mustRun(t, sh, `echo "$$ ${PWD##*/} $G"; touch ../.git/x 2>/dev/null && echo wrote-git; touch ok && echo wrote-ws`, RunOptions{})
	if want := first.Output + " sub 1\nwrote-ws"; res.Output != want {
		t.Errorf("second command (sandbox: %s): %q, want %q", sb.Status(), res.Output, want)
	}
}

// TestMissingPlaceMadeAsItsFolderWasStampedIsSeen: a place made in the
// same tick of the clock as the stamp of its folder (here: the folder's
// time set back to the stamped one, as the same tick leaves it) is seen
// at the next check, and at every check until the folder's time is old
// enough to tell changes by; then the check is one stat again.
func TestMissingPlaceMadeAsItsFolderWasStampedIsSeen(t *testing.T) {
	home := t.TempDir()
	place := filepath.Join(home, ".npm")
	stamps := missingStamps([]string{place})
	if len(stamps) != 1 || stamps[0].path != home {
		t.Fatalf("stamps %+v, want one for %s", stamps, home)
	}
	if stampsChanged(stamps) {
		t.Fatal("changed without a change")
	}
	stamped := stamps[0].mtime
	if err := os.Mkdir(place, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(home, stamped, stamped); err != nil {
		t.Fatal(err)
	}
	if !stampsChanged(stamps) {
		t.Error("a place made in the tick its folder was stamped in went unnoticed")
	}
	// An old folder time: the stamp is trusted (one stat per check).
	if err := os.Remove(place); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(home, old, old); err != nil {
		t.Fatal(err)
	}
	if stampsChanged(stamps) || stamps[0].racy {
		t.Errorf("a folder an hour old still racy: %+v", stamps[0])
	}
}
