//go:build linux

package sandbox

import (
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPinFolders: every folder from the outermost writable place down to
// a protected path's own folder, shallowest first, each once; none for a
// place's own .git or a path outside the places.
func TestPinFolders(t *testing.T) {
	places := []string{"/ws", "/ws/inner", "/cache"}
	paths := []string{"/ws/.git", "/ws/tp/lib/.git", "/ws/tp/other/.git", "/ws/inner/a/.git", "/ws/lazy", "/elsewhere/x/.git"}
	want := []string{"/ws/inner", "/ws/tp", "/ws/inner/a", "/ws/tp/lib", "/ws/tp/other"}
	if diff := cmp.Diff(want, pinFolders(places, paths)); diff != "" {
		t.Errorf("pinFolders (-want +got):\n%s", diff)
	}
}

// BenchmarkMountNested is a workspace-write command's start in mount mode
// in a workspace holding a repository with submodules, nested clones, a
// bare repository and a package's clone (gitFixture): the read-only
// mounts, and the folders on the way to them pinned (pinFolders).
func BenchmarkMountNested(b *testing.B) {
	sb := New("")
	if st := sb.Status(); st.Git != GitMount {
		b.Skip("no mount namespace: " + st.GitReason)
	}
	f := newGitFixture(b)
	cpu0 := cpuTime()
	for b.Loop() {
		waitc, err := sb.Start(exec.Command("/bin/true"), f.spec())
		if err != nil {
			b.Fatal(err)
		}
		if err := <-waitc; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}
