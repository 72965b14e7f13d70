//go:build linux

package trust

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunHelperIfAsked()
	os.Exit(m.Run())
}

// TestSandboxedCommandCannotTrust checks the store's premise: a command
// the agent runs cannot change the trust file, even when the workspace is
// the home folder and olly's state directory lies inside it (internal/app
// puts the state directory among the sandbox's protected paths).
func TestSandboxedCommandCannotTrust(t *testing.T) {
	b := sandbox.New("")
	if !b.Status().Active() {
		t.Skipf("no sandbox on this machine (%s): this test needs Landlock", b.Status().Reason)
	}
	home, _ := filepath.EvalSymlinks(t.TempDir())
	state := filepath.Join(home, ".local", "state", "olly")
	s, err := Open(filepath.Join(state, "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Trust(home, KindHook, "PreToolUse/0", "good"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())
	spec := sandbox.Spec{Policy: sandbox.WorkspaceWrite, Writable: []string{home}, DenyRead: []string{state}}
	for name, script := range map[string]string{
		"overwrite": "echo '{}' > " + s.Path(),
		"rename":    "echo '{}' > " + filepath.Join(home, "t.json") + " && mv " + filepath.Join(home, "t.json") + " " + s.Path(),
		"remove":    "rm -f " + s.Path(),
	} {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
		waitc, err := b.Start(cmd, spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-waitc; err == nil {
			t.Errorf("%s: the sandboxed command succeeded", name)
		}
		after, _ := os.ReadFile(s.Path())
		if string(after) != string(before) {
			t.Fatalf("%s: the trust file changed", name)
		}
	}
	if !s.Trusted(home, KindHook, "PreToolUse/0", "good") {
		t.Fatal("the decision was lost")
	}
}
