package shell

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// These tests play what a read-only command (which runs without asking)
// can leave in its bash for later approved commands to trip on: the
// attributes of a variable, an export, a locale. Each runs twice: the
// live workspace-write bash takes the state over (sync), or, killed in
// between, a new one restores it.

// handOver runs, in a new sandboxed session's workspace ws (made ready
// by prepare, if any), setup with workspace-write rights (the write
// bash's own state), plant read-only, then (after killing the write
// bash, for restore) command with workspace-write rights.
func handOver(t *testing.T, restore bool, prepare func(ws string), setup, plant, command string) (*Result, string) {
	t.Helper()
	m, ws, _, _ := sandboxed(t)
	if prepare != nil {
		prepare(ws)
	}
	sh := m.Session("s")
	rw := pidOf(t, sh, readWrite)
	if setup != "" {
		if res := mustRun(t, sh, setup, readWrite); res.ExitCode != 0 {
			t.Fatalf("setting up failed: %s", res.Text())
		}
	}
	if res := mustRun(t, sh, plant, readOnly); res.ExitCode != 0 {
		t.Fatalf("planting failed: %s", res.Text())
	}
	if restore {
		if err := syscall.Kill(rw, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	return mustRun(t, sh, command, readWrite), ws
}

var syncOrRestore = map[bool]string{false: "sync", true: "restore"}

// TestHandOverAssignmentsAsInFreshBash: integer, readonly, case-converting
// and nameref attributes a read-only command gave variables do not reach
// the approved command: its assignments (read into a planted declare -i
// name runs no subscript, a read into a planted readonly one takes) behave
// as in a fresh bash, and the values still cross.
func TestHandOverAssignmentsAsInFreshBash(t *testing.T) {
	plant := `declare -i line REPLY n=5; declare -r d="$PWD/victim"; declare -l low=abc; declare -u up=ABC; declare -n ref=target; declare -ai arr=(1 2)`
	command := `printf '%s\n' 'a[$(touch pwned)]' > notes.txt
while read -r line; do echo "line=$line"; done < notes.txt
read -r < notes.txt; echo "REPLY=$REPLY"
n=x+1; echo "n=$n"
read -r d <<<build; echo "d=$d"; rm -rf "$d"
echo "$low $up"; low=MiXed up=MiXed; echo "$low $up"
ref=1; echo "target=${target-unset}"
arr+=(3+4); echo "arr=${arr[*]}"`
	want := "line=a[$(touch pwned)]\nREPLY=a[$(touch pwned)]\nn=x+1\nd=build\nabc ABC\nMiXed MiXed\ntarget=unset\narr=1 2 3+4"
	for _, restore := range []bool{false, true} {
		t.Run(syncOrRestore[restore], func(t *testing.T) {
			res, ws := handOver(t, restore, func(ws string) {
				if err := os.MkdirAll(filepath.Join(ws, "victim"), 0o755); err != nil {
					t.Fatal(err)
				}
			}, "", plant, command)
			if res.Output != want {
				t.Errorf("got %q, want %q (%s)", res.Output, want, res.Text())
			}
			if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
				t.Error("a subscript in data read into a planted integer variable ran a command")
			}
			if _, err := os.Stat(filepath.Join(ws, "victim")); err != nil {
				t.Error("a read into a planted readonly variable failed and the command deleted what it named")
			}
		})
	}
}

// TestHandOverExportsAndLocales: a read-only command's declare -x does not
// export a name to the approved command's programs (TOKEN, set by the
// approved command, stays in the shell; FOO crosses unexported, with a
// note); a name the workspace-write bash exports takes no value from a
// read-only command at all (KEEPX, an exported value a program would act
// on, keeps its own; a read-only unset of KEEPU is not taken either);
// code hooks of programs (TAR_OPTIONS, GNUMAKEFLAGS, DBUS_*, *_OPTS) do
// not cross at all; a locale in another character set (BIG5) does not
// cross; and a name that does not cross keeps the workspace-write bash's
// own value (CONF, LC_ALL). Checked on env's output, what programs see.
func TestHandOverExportsAndLocales(t *testing.T) {
	setup := `export KEEPX=0 KEEPU=1 CONF=/etc/own.conf; LC_ALL=C; unset LANG`
	plant := `declare -x TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=touch pwned' GNUMAKEFLAGS='--eval=$(shell touch pwned)' TOKEN FOO=bar DBUS_SESSION_BUS_ADDRESS='unixexec:path=/bin/sh,argv1=-c,argv2=touch%20pwned' ANT_OPTS=-javaagent:x.jar; KEEPX='unixexec:path=/bin/sh'; unset KEEPU; export CONF=$__olly_d/x.conf; LC_ALL=zh_TW.BIG5; LANG=en_US.UTF-8`
	command := `TOKEN=s3cret; env | grep -E '^(TAR_OPTIONS|GNUMAKEFLAGS|TOKEN|FOO|KEEPX|KEEPU|CONF|LC_ALL|DBUS_SESSION_BUS_ADDRESS|ANT_OPTS)=' | sort; echo "FOO=$FOO LC_ALL=$LC_ALL LANG=$LANG TAR=${TAR_OPTIONS-none} MAKE=${GNUMAKEFLAGS-none}"`
	want := "CONF=/etc/own.conf\nKEEPU=1\nKEEPX=0\nFOO=bar LC_ALL=C LANG=en_US.UTF-8 TAR=none MAKE=none"
	for _, restore := range []bool{false, true} {
		t.Run(syncOrRestore[restore], func(t *testing.T) {
			res, _ := handOver(t, restore, nil, setup, plant, command)
			if res.Output != want {
				t.Errorf("got %q, want %q (%s)", res.Output, want, res.Text())
			}
			for _, note := range []string{"(FOO, TOKEN) reach this command unexported", "8 variables that read-only commands set or unset were not carried (ANT_OPTS, CONF, DBUS_SESSION_BUS_ADDRESS, GNUMAKEFLAGS, KEEPU, …)"} {
				if !hasNote(res, note) {
					t.Errorf("want a note with %q: %q", note, res.Notes)
				}
			}
		})
	}
}

// TestSafeLocale: the locales that cross.
func TestSafeLocale(t *testing.T) {
	for value, want := range map[string]bool{
		"": true, "C": true, "POSIX": true, "C.UTF-8": true, "en_US.utf8": true, "de_DE.UTF-8@euro": true,
		"zh_TW.BIG5": false, "zh_TW": false, "ja_JP.SJIS": false, "/tmp/x.UTF-8": false, "../x.utf8": false,
		"en_US.UTF-8 ": false, "c": false,
	} {
		if got := (&shVar{name: "LC_ALL", set: true, value: value}).safeLocale(); got != want {
			t.Errorf("safeLocale(%q) = %v, want %v", value, got, want)
		}
	}
	if got := strings.Join([]string{carriedAttrs("airlux"), carriedAttrs("Ax"), carriedAttrs("nt")}, "|"); got != "ax|Ax|" {
		t.Errorf("carriedAttrs: %q", got)
	}
}
