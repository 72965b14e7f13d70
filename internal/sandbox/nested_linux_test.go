//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestedBudgetIsSaid: a plan whose search was cut short says so
// (StartPlan.NestedCut, which the shell passes on), and says nothing when
// the search was whole; in both cases what was found is protected.
func TestNestedBudgetIsSaid(t *testing.T) {
	base := activeSandbox(t)
	saved := nestBudget
	t.Cleanup(func() { nestBudget = saved })
	for _, mode := range []string{GitSplit, GitMount} {
		b := withGit(base, mode)
		if mode == GitMount && base.Status().Git != GitMount {
			t.Logf("mount namespace mode not tested: %s", base.Status().GitReason)
			continue
		}
		f := newGitFixture(t)
		nestBudget = saved
		if cut := b.PlanStart(f.spec()).NestedCut(); cut != "" {
			t.Fatalf("%s: the whole search says it was cut: %s", mode, cut)
		}
		nestBudget.dirs = 2 // the top level, and node_modules as it is met there
		cut := b.PlanStart(f.spec()).NestedCut()
		if !strings.Contains(cut, f.ws) || !strings.Contains(cut, "2 folders") || !strings.Contains(cut, "not protected") {
			t.Errorf("%s: cut = %q, want the place, the bound and what it means", mode, cut)
		}
		// node_modules is read as the top level is, so its package's
		// clone is found within that bound and stays protected.
		if out, err := runIn(t, b, f.spec(), f.ws, gitAttacks["plant a hook in a package's clone"]); err == nil {
			t.Errorf("%s: a repository found before the cut was not protected:\n%s", mode, out)
		}
		if _, err := os.Lstat(filepath.Join(f.ws, "node_modules/pkg/.git/hooks/pre-commit")); err == nil {
			t.Errorf("%s: the hook was planted", mode)
		}
	}
}
