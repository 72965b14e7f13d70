package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlanStartGrants: the allow list PlanStart gives callers is the one
// Start confines with: the workspace holding .git stays writable whole
// where mounts keep .git read-only, and is split (List) where the
// per-entry rules do; an unsandboxed command has none.
func TestPlanStartGrants(t *testing.T) {
	activeSandbox(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	must(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}

	mounted := New("")
	want := List
	if mounted.Status().Git == GitMount {
		want = Write
	}
	for name, c := range map[string]struct {
		b    *Sandbox
		want Access
	}{"this machine": {mounted, want}, "failing helper": {New("/bin/false"), List}} {
		p := c.b.PlanStart(spec)
		if g, ok := grantOf(p.Grants(), ws); !ok || g.Access != c.want {
			t.Errorf("%s (%s): workspace grant %+v (found %v), want access %d", name, c.b.Status().Git, g, ok, c.want)
		}
		if g, ok := grantOf(p.Grants(), filepath.Join(ws, ".git")); ok && g.Access == Write {
			t.Errorf("%s: .git writable: %+v", name, g)
		}
	}
	if gs := mounted.PlanStart(Spec{Policy: Unsandboxed}).Grants(); gs != nil {
		t.Errorf("unsandboxed grants: %v", gs)
	}
}
