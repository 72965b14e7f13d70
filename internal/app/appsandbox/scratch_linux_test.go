//go:build linux

package appsandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/workspace"
)

// TestScratchCannotBecomeALink is the attack of the security review on
// the session's scratch directory, with the shells the app really makes
// (app.ShellOptions) and the scratch directory as the agent and
// PrestartShell open it (agent.OpenScratch): a workspace-write command
// cannot replace its scratch directory with a link to the home folder,
// nor write the folder holding every session's; a link planted there by
// something else is refused when the scratch directory is opened again,
// and not followed by the next bash.
func TestScratchCannotBecomeALink(t *testing.T) {
	b := activeSandbox(t)
	cfg, proj := setup(t, "proj")
	home := filepath.Dir(proj)
	bashrc := filepath.Join(home, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := app.ShellOptions(cfg, b)
	opts.Roots, opts.ArtifactDir = []string{proj}, t.TempDir()
	m, err := shell.NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.CloseAll() }()
	ws, err := workspace.New([]string{proj})
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := agent.OpenScratch(opts.ScratchDir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	other, err := agent.OpenScratch(opts.ScratchDir, "s2")
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Allow(scratch); err != nil {
		t.Fatal(err)
	}
	sh := m.Session("s1")
	run := func(command string) *shell.Result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := sh.Run(ctx, command, shell.RunOptions{Writable: ws.Dirs()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(`echo ok > "` + scratch + `/f"`); res.ExitCode != 0 {
		t.Fatalf("the session's scratch directory is not writable: %s", res.Text())
	}
	for _, cmd := range []string{
		`rm -rf "` + scratch + `" && ln -s "` + home + `" "` + scratch + `"`,
		`echo x > "` + other + `/f"`,
		`touch "` + filepath.Dir(scratch) + `/planted"`,
	} {
		if res := run(cmd); res.ExitCode == 0 {
			t.Errorf("%s: succeeded", cmd)
		}
	}
	if fi, err := os.Lstat(scratch); err != nil || !fi.IsDir() {
		t.Fatalf("the scratch directory was replaced: %v", err)
	}
	// Planted from outside the sandbox (another olly, a job a person let
	// run unsandboxed): opening it again refuses the link...
	if err := os.RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, scratch); err != nil {
		t.Fatal(err)
	}
	if dir, err := agent.OpenScratch(opts.ScratchDir, "s1"); err == nil {
		t.Fatalf("OpenScratch accepted a link to the home folder: %s", dir)
	}
	// ...and the bash started next does not follow it.
	res := run(`echo pwned >> "` + scratch + `/.bashrc"`)
	if got, _ := os.ReadFile(bashrc); string(got) != "original\n" {
		t.Fatalf("~/.bashrc was written through the scratch link: %q\n%s", got, res.Text())
	}
}
