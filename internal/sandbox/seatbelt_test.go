package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The profiles use paths that do not exist, so resolving links changes
// nothing and the golden files are the same on every machine.
func TestSeatbeltProfilesGolden(t *testing.T) {
	deny := []string{"/nonexistent/home/.ssh", "/nonexistent/home/.aws", `/nonexistent/home/we"ird\dir`}
	specs := map[string]Spec{
		"read-only": {Policy: ReadOnly, Writable: []string{"/nonexistent/proj"}, Own: []string{"/nonexistent/state/s1", "/nonexistent/tmp/s1"}, DenyRead: deny},
		"workspace-write": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj", "/nonexistent/home/.cache"},
			Own: []string{"/nonexistent/state/s1", "/nonexistent/tmp/s1"}, DenyRead: deny},
		"workspace-write-network": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj"}, Network: true},
		"workspace-write-readonly": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj"},
			ReadOnly: []string{"/nonexistent/proj/vendor/lib/.git", "/nonexistent/proj/.git"}},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			got := SeatbeltProfile(spec)
			path := filepath.Join("testdata", "seatbelt-"+name+".sb")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/sandbox -update)", err)
			}
			if got != string(want) {
				t.Errorf("profile for %s differs from %s (run with -update after checking):\n%s", name, path, got)
			}
		})
	}
}
