//go:build linux

package sandbox

import (
	"path/filepath"
	"testing"
)

// TestReadOnlyWorkedOutOnce: working out the read-only paths re-reads
// every repository's submodules and index, so a plan does it once, and
// explaining a failed command does it only when a line looks like a
// refusal (a grep with no match, a failing test: none).
func TestReadOnlyWorkedOutOnce(t *testing.T) {
	base := activeSandbox(t)
	f := newGitFixture(t)
	spec := f.spec()
	walks := func(what string, want int64, do func()) {
		t.Helper()
		n := readOnlyWalks.Load()
		do()
		if got := readOnlyWalks.Load() - n; got != want {
			t.Errorf("%s: the read-only paths were worked out %d times, want %d", what, got, want)
		}
	}
	for _, mode := range []string{GitSplit, GitMount} {
		b := withGit(base, mode)
		walks(mode+" PlanStart", 1, func() { b.PlanStart(spec) })
	}
	b := withGit(base, GitSplit)
	walks("Explain, no refusal", 0, func() {
		b.Explain(spec, f.ws, "", "--- FAIL: TestX (0.00s)\nFAIL\nexit status 1\n")
	})
	walks("Explain, two refusals", 1, func() {
		b.Explain(spec, f.ws, "", "cp: cannot create regular file '.git/hooks/x': Permission denied\n"+
			"touch: cannot touch '"+filepath.Join(f.ws, "new")+"': Permission denied\n")
	})
}
