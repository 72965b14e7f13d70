package shell

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// handOverSteps is handOver with the read-only commands made from the
// workspace's path (plants).
func handOverSteps(t *testing.T, restore bool, setup string, plants func(ws string) []string, command string) (*Result, string) {
	t.Helper()
	m, ws, _, _ := sandboxed(t)
	sh := m.Session("s")
	rw := pidOf(t, sh, readWrite)
	if res := mustRun(t, sh, setup, readWrite); res.ExitCode != 0 || len(res.Notes) != 0 {
		t.Fatalf("setting up failed: %s", res.Text())
	}
	for _, p := range plants(ws) {
		if res := mustRun(t, sh, p, readOnly); res.ExitCode != 0 {
			t.Fatalf("planting failed: %s", res.Text())
		}
	}
	if restore {
		if err := syscall.Kill(rw, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	return mustRun(t, sh, command, readWrite), ws
}

// TestPartialStateUnsetsBeforeSetting: when part of a read-only state
// cannot be read (an unquoted value), what can be read still crosses, and
// each name it sets is unset first in the workspace-write bash: an
// integer attribute an approved command gave N does not evaluate the
// value (its subscript would run a command there), a nameref r=PATH does
// not pass the value into PATH. The write bash's other variables stay.
func TestPartialStateUnsetsBeforeSetting(t *testing.T) {
	setup := `declare -i N; declare -a a; declare -n r=PATH; OWN=mine`
	command := `echo "N=$N r=$r OWN=$OWN"; [[ $PATH != *evil* ]] || echo "PATH=$PATH"`
	for _, restore := range []bool{false, true} {
		t.Run(syncOrRestore[restore], func(t *testing.T) {
			res, ws := handOverSteps(t, restore, setup, func(ws string) []string {
				return plantFile("declare -- N=\"a[\\$(touch " + filepath.Join(ws, "pwned") + ")]\"\n" +
					"declare -- r=\"/evil\"\ndeclare -i bad=1\n")
			}, command)
			want := "N=a[$(touch " + filepath.Join(ws, "pwned") + ")] r=/evil OWN=mine"
			if res.Output != want || !hasNote(res, "could not be read") {
				t.Errorf("got %s, want %q and a note", res.Text(), want)
			}
			if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
				t.Error("a value set into the write bash's integer variable ran its subscript")
			}
		})
	}
}

// TestHandOverIgnoresFunctionsNamedDeclare: the data olly writes sets the
// variables through the builtins, so functions named declare and unset
// that an approved command defined do not run for each of them: the
// variables still arrive. (Defined with "function": olly runs "declare()"
// in a subshell, as it cannot tell what it does. A new bash restoring its
// own state calls its function declare for each "declare -f" line that
// bash's declare -F printed: only calls for x and arr count here.)
func TestHandOverIgnoresFunctionsNamedDeclare(t *testing.T) {
	setup := `function declare { echo "declare $*" >> "$PWD/declared.txt"; }; function unset { echo "unset $*" >> "$PWD/declared.txt"; }`
	command := `echo "x=$x arr=${arr[1]}"; [[ ! -e declared.txt ]] || grep -E ' (x|arr)\b' declared.txt`
	for _, restore := range []bool{false, true} {
		t.Run(syncOrRestore[restore], func(t *testing.T) {
			res, _ := handOverSteps(t, restore, setup, func(string) []string {
				return []string{"x=1; arr=(a b)"}
			}, command)
			if res.Output != "x=1 arr=b" {
				t.Errorf("got %s, want x=1 arr=b and no call of the functions", res.Text())
			}
		})
	}
}

// TestMentionsPlace: the check that keeps an exported variable naming
// olly's state folder or TMPDIR from crossing ignores case where the file
// system does (macOS: the folder in upper case is the same folder).
func TestMentionsPlace(t *testing.T) {
	for _, c := range []struct {
		s, place   string
		fold, want bool
	}{
		{"/tmp/olly-state-1/x.conf", "/tmp/olly-state-1", false, true},
		{"/TMP/OLLY-STATE-1/x.conf", "/tmp/olly-state-1", false, false},
		{"/TMP/OLLY-STATE-1/x.conf", "/tmp/olly-state-1", true, true},
		{"../Olly-State-1/x", "olly-state-1", true, true},
		{"/tmp/other/x", "/tmp/olly-state-1", true, false},
		{"anything", "", true, false},
	} {
		if got := mentions(c.s, c.place, c.fold); got != c.want {
			t.Errorf("mentions(%q, %q, %v) = %v, want %v", c.s, c.place, c.fold, got, c.want)
		}
	}
	if want := runtime.GOOS == "darwin"; foldPaths != want {
		t.Errorf("foldPaths = %v on %s", foldPaths, runtime.GOOS)
	}
	v := &shVar{name: "CONF", attrs: "x", set: true, value: "/TMP/OLLY-STATE-1/x.conf"}
	if got := v.names([]string{"/tmp/olly-state-1"}); got != foldPaths {
		t.Errorf("names of an upper-case path: %v, want %v on %s", got, foldPaths, runtime.GOOS)
	}
}
