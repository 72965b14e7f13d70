//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSubmoduleProtectionOutlivesGitmodules: a command empties
// .gitmodules (workspace content it may change); the next command, whose
// spec is built afresh, still cannot redirect the submodule's or the
// nested submodule's .git, which the protected git folder records.
func TestSubmoduleProtectionOutlivesGitmodules(t *testing.T) {
	base := activeSandbox(t)
	modes := map[string]*Sandbox{"split": withGit(base, GitSplit)}
	if base.Status().Git == GitMount {
		modes["mount"] = base
	}
	for mode, b := range modes {
		t.Run(mode, func(t *testing.T) {
			f := newGitFixture(t)
			if out, err := runIn(t, b, f.spec(), f.ws, ": > .gitmodules"); err != nil {
				t.Fatalf("emptying .gitmodules: %v\n%s", err, out)
			}
			if data, _ := os.ReadFile(filepath.Join(f.ws, ".gitmodules")); len(data) != 0 {
				t.Fatalf(".gitmodules still holds %q", data)
			}
			for _, script := range []string{
				"echo 'gitdir: /tmp/evil' > sub/.git",
				"echo 'gitdir: /tmp/evil' > sub/inner/.git",
				"rm -f sub/inner/.git",
			} {
				if out, err := runIn(t, b, f.spec(), f.ws, script); err == nil {
					t.Fatalf("%q worked after .gitmodules was emptied:\n%s", script, out)
				}
			}
			f.check(t, "after .gitmodules was emptied")
		})
	}
}
