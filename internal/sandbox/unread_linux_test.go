//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnreadableFolderKeptReadOnly: a sandboxed command can chmod a
// folder (Landlock has no right covering chmod) so that the next search
// cannot read it; what lies below must not then go unprotected for the
// command after it, which can chmod it back. The folder is kept
// read-only and the search says so. Root reads every folder, so this runs
// as an ordinary user (TestGitAsNonRoot runs it as uid 65534).
func TestUnreadableFolderKeptReadOnly(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads every folder: TestGitAsNonRoot runs this as uid 65534")
	}
	base := activeSandbox(t)
	modes := map[string]*Sandbox{GitSplit: withGit(base, GitSplit)}
	if base.Status().Git == GitMount {
		modes[GitMount] = base
	} else {
		t.Logf("mount namespace mode not tested: %s", base.Status().GitReason)
	}
	for mode, b := range modes {
		for _, c := range []struct{ hide, script string }{
			{"third_party", "chmod 755 ws/third_party; printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> ws/third_party/lib/.git/config"},
			{"", "chmod 755 ws; printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> ws/.git/config"},
		} {
			f := newGitFixture(t)
			hidden := filepath.Join(f.ws, c.hide)
			must(t, os.Chmod(hidden, 0))
			got := f.spec().searched().Nested
			if !slices.Contains(got.Unread, hidden) || !strings.Contains(got.Cut, "could not list "+hidden) {
				t.Errorf("%s: search of a workspace with %s unreadable: %+v", mode, hidden, got)
			}
			out, err := runIn(t, b, f.spec(), filepath.Dir(f.ws), c.script)
			_ = os.Chmod(hidden, 0o755)
			if err == nil {
				t.Errorf("%s: the attack through unreadable %s succeeded:\n%s", mode, hidden, out)
			}
			f.check(t, mode+": "+c.script)
		}
	}
}
