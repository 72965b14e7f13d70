package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// These tests play what a read-only command (which runs without asking)
// can leave for the session's workspace-write bash, with the real sandbox:
// nothing of it may run there, the approved command runs as given, and
// the variables still carry over, as data. Each runs twice: the live
// workspace-write bash takes the state over (sync), or, killed in between,
// a new one restores it.

// plantFile is a read-only command that makes its bash's saved state the
// given text (both slots; the bash does not save after it), after a
// command that saved, so that olly takes that slot over.
func plantFile(text string) []string {
	return []string{
		"export BEFORE=1",
		"printf '%s' " + singleQuote(text) + ` > "$__olly_d/state0"; cp "$__olly_d/state0" "$__olly_d/state1"; __olly_sv=0`,
	}
}

func readOnlyPlants(ws string) map[string]struct {
	commands []string
	note     string
} {
	pw := filepath.Join(ws, "pwned")
	return map[string]struct {
		commands []string
		note     string
	}{
		"code in the state file": {plantFile("declare -x A=\"1\"\ntouch " + pw + "-code\n" +
			"__olly_req[5]='touch " + pw + "-req'; __olly_cmd='touch " + pw + "-cmd'\n" +
			"builtin () { if [[ $1 == printf ]]; then : > " + pw + "-builtin; fi; command builtin \"$@\"; }\n"), "functions and aliases"},
		"builtin function in the state file": {plantFile("declare -x A=\"1\"\n" +
			"builtin () \n{ \n    if [[ $1 == printf ]]; then\n        : > " + pw + "-builtin;\n    fi;\n    command builtin \"$@\"\n}\ndeclare -f builtin\n"), "functions and aliases"},
		// bash's own integer OPTIND keeps its attribute in the taking bash.
		"bash's own integer": {plantFile("declare -x A=\"1\"\ndeclare -i OPTIND=\"a[\\$(touch " + pw + "-optind)]\"\n"), "variables read-only commands exported (A) reach this command unexported"},
		"functions and aliases": {[]string{
			"export A=1; git() { touch " + pw + "-git; }; ls() { touch " + pw + "-ls; }; alias bash='touch " + pw + "-alias; bash'",
		}, "functions and aliases that read-only commands defined or changed do not carry over"},
		"loader variables": {[]string{
			// (Its own folder is all a read-only command may write.)
			`d=$__olly_d; printf 'touch ` + pw + `-bashenv\n' > $d/env.sh; mkdir -p $d/bin; printf '#!/bin/sh\ntouch ` + pw + `-path\n' > $d/bin/git; chmod +x $d/bin/git`,
			"export A=1 LD_PRELOAD=$__olly_d/evil.so BASH_ENV=$__olly_d/env.sh PATH=$__olly_d/bin:$PATH CONF=$__olly_d/x.conf",
		}, "4 variables that read-only commands set or unset were not carried (BASH_ENV, CONF, LD_PRELOAD, PATH)"},
	}
}

func TestReadOnlyStateReachesWritesAsDataOnly(t *testing.T) {
	for _, restore := range []bool{false, true} {
		for name := range readOnlyPlants("") {
			t.Run(name+map[bool]string{false: " sync", true: " restore"}[restore], func(t *testing.T) {
				m, ws, _, _ := sandboxed(t)
				plant := readOnlyPlants(ws)[name]
				sh := m.Session("s")
				rw := pidOf(t, sh, readWrite)
				for _, c := range plant.commands {
					if res := mustRun(t, sh, c, readOnly); res.ExitCode != 0 {
						t.Fatalf("planting failed: %s", res.Text())
					}
				}
				if restore {
					if err := syscall.Kill(rw, syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
				}
				res := mustRun(t, sh, `echo ok > approved.txt; echo "A=${A-} LD=${LD_PRELOAD-none} BE=${BASH_ENV-none} CONF=${CONF-none}"; git --version >/dev/null 2>&1; ls >/dev/null; bash -c true; command -v git`, readWrite)
				if !strings.Contains(res.Output, "A=1 LD=none BE=none CONF=none") || strings.Contains(res.Output, "/bin/git") && !strings.Contains(res.Output, "\n/usr/bin/git") {
					t.Errorf("want A carried and no loader variables: %s", res.Text())
				}
				if !hasNote(res, plant.note) {
					t.Errorf("want a note with %q: %s", plant.note, res.Text())
				}
				if again := mustRun(t, sh, "echo again", readWrite); again.Output != "again" || again.ExitCode != 0 {
					t.Errorf("the next command: %s", again.Text())
				}
				if b, err := os.ReadFile(filepath.Join(ws, "approved.txt")); err != nil || string(b) != "ok\n" {
					t.Errorf("the approved command did not run as given: %q %v", b, err)
				}
				ents, _ := os.ReadDir(ws)
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), "pwned") {
						t.Errorf("what a read-only command planted ran with workspace-write rights: %s", e.Name())
					}
				}
			})
		}
	}
}

// TestStateCarriesAcrossPolicies: cd, plain variables (with spaces and
// newlines), arrays and unset from read-only commands reach the next
// workspace-write command, without a note; the workspace-write bash's own
// exports (KEEP, LD_LIBRARY_PATH), functions and aliases survive
// read-only commands in between, also when that bash is replaced.
func TestStateCarriesAcrossPolicies(t *testing.T) {
	for _, restore := range []bool{false, true} {
		t.Run("restore="+strconv.FormatBool(restore), func(t *testing.T) {
			m, ws, _, _ := sandboxed(t)
			sh := m.Session("s")
			rw := pidOf(t, sh, readWrite)
			mustRun(t, sh, "f() { echo fn; }; alias al='echo al'; GONE=1; export KEEP=own LD_LIBRARY_PATH=/opt/own", readWrite)
			mustRun(t, sh, `cd sub; A=1 B='x y' C=$'a\nb'; declare -a arr=(1 "2 3"); declare -A m=([k]=v); p=plain; unset GONE`, readOnly)
			mustRun(t, sh, "echo stateless", readOnly)
			if restore {
				if err := syscall.Kill(rw, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			res := mustRun(t, sh, `printf '%s|' "$A" "$B" "$C" "${arr[1]}" "${m[k]}" "$p" "${GONE-unset}" "$LD_LIBRARY_PATH"; echo; pwd; f; al; env | grep '^KEEP='`, readWrite)
			want := "1|x y|a\nb|2 3|v|plain|unset|/opt/own|\n" + filepath.Join(ws, "sub") + "\nfn\nal\nKEEP=own"
			if res.Output != want || len(res.Notes) != 0 {
				t.Errorf("got %q (notes %q), want %q", res.Output, res.Notes, want)
			}
		})
	}
}

// TestHugeReadOnlyStateIsNotCarried: a read-only state over maxDataState
// is not parsed (a command could otherwise make olly hold that much): the
// workspace-write bash keeps its own state, or a new one takes the newest
// state a bash that was not read-only saved, and the result says so.
func TestHugeReadOnlyStateIsNotCarried(t *testing.T) {
	for _, restore := range []bool{false, true} {
		t.Run("restore="+strconv.FormatBool(restore), func(t *testing.T) {
			m, _, _, _ := sandboxed(t)
			sh := m.Session("s")
			rw := pidOf(t, sh, readWrite)
			mustRun(t, sh, "f() { echo fn; }; export W=1", readWrite)
			if res := mustRun(t, sh, "export A=1; big=$(head -c 5000000 /dev/zero | tr '\\0' x); echo ${#big}", readOnly); res.Output != "5000000" {
				t.Fatalf("the big variable: %s", res.Text())
			}
			if restore {
				if err := syscall.Kill(rw, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			res := mustRun(t, sh, `echo "A=${A-none} W=$W ${#big}"; f`, readWrite)
			if res.Output != "A=none W=1 0\nfn" || !hasNote(res, "larger than 4 MiB") {
				t.Errorf("got %s", res.Text())
			}
		})
	}
}

// TestNoHandOverNoteWhenNothingIsLeft: a session whose first commands are
// read-only (its workspace-write bash then starts from their state, with
// no workspace-write state to compare with) gets no note about what bash
// sets by itself (IFS, PS4, SHELLOPTS…, and HOME, SHELL, TERM when the
// environment lacks them, as a CI runner's may), nor later when nothing
// was left.
func TestNoHandOverNoteWhenNothingIsLeft(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func() []string
	}{
		{"HOME SHELL TERM given", func() []string {
			return append(os.Environ(), "HOME=/nonexistent/home", "SHELL=/bin/sh", "TERM=xterm")
		}},
		{"HOME SHELL TERM missing", func() []string {
			return slices.DeleteFunc(os.Environ(), func(kv string) bool {
				name, _, _ := strings.Cut(kv, "=")
				return name == "HOME" || name == "SHELL" || name == "TERM"
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _, _ := sandboxedWith(t, func(o *ManagerOptions) { o.Env = tc.env() })
			sh := m.Session("s")
			mustRun(t, sh, "ls", readOnly)
			if res := mustRun(t, sh, "echo hi", readWrite); len(res.Notes) != 0 {
				t.Errorf("first workspace-write command: %s", res.Text())
			}
			mustRun(t, sh, "x=1", readOnly)
			if res := mustRun(t, sh, "echo $x", readWrite); res.Output != "1" || len(res.Notes) != 0 {
				t.Errorf("after a read-only x=1: %s", res.Text())
			}
			// A value the read-only command chose is left behind, and noted.
			mustRun(t, sh, "export SHELL=/bin/evil", readOnly)
			if res := mustRun(t, sh, "echo ${SHELL-unset}", readWrite); res.Output == "/bin/evil" || !hasNote(res, "(SHELL)") {
				t.Errorf("after a read-only export SHELL=/bin/evil: %s", res.Text())
			}
		})
	}
}
