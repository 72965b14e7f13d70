package app

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/store"
)

// TestPrestartShellWhenTheSessionIsKnown: a frontend that knows the
// session, its workspace and its policy starts the session's bash at once
// (before any turn); not for a read-only mode, nor where no command that
// changes something could run; and closing the app ends it.
func TestPrestartShellWhenTheSessionIsKnown(t *testing.T) {
	for name, c := range map[string]struct {
		policy approval.Policy
		mode   event.Mode
		want   bool
	}{
		"agent":            {approval.Policy{}, event.ModeAgent, true},
		"plan":             {approval.Policy{}, event.ModePlan, false},
		"unattended, ask":  {approval.Policy{Unattended: true, Mode: event.ApprovalModeAsk}, event.ModeAgent, false},
		"unattended, -yes": {approval.Policy{Unattended: true, Yes: true}, event.ModeAgent, true},
	} {
		t.Run(name, func(t *testing.T) {
			a, ws := prestartApp(t, c.policy)
			a.PrestartShell(&store.Session{ID: "s1", Workspace: ws, Mode: string(c.mode)})
			wait := 10 * time.Second
			if !c.want {
				wait = 500 * time.Millisecond // it would have started by now
			}
			pid := bashIn(ws, wait)
			if c.want != (pid != 0) {
				t.Fatalf("bash started: %v, want %v", pid != 0, c.want)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if pid != 0 && processAlive(pid) {
				t.Errorf("bash %d still runs after Close", pid)
			}
			// No turn ran: the scratch directory made for it is gone.
			if _, err := os.Stat(agent.ScratchPath(a.scratchDir(), "s1")); err == nil {
				t.Error("the session's scratch directory is left after Close")
			}
		})
	}
}

func prestartApp(t *testing.T, policy approval.Policy) (*App, string) {
	t.Helper()
	ctx := context.Background()
	home, ws := t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "c"), "XDG_DATA_HOME=" + filepath.Join(home, "d"),
			"XDG_STATE_HOME=" + filepath.Join(home, "s")}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	prov, err := ollama.New(llmtest.New(t).URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, Options{Config: cfg, Store: st, Provider: prov, Sandbox: sandbox.Disabled("test"), Approvals: policy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ws, _ = filepath.EvalSymlinks(ws)
	return a, ws
}

// bashIn returns the pid of a child of this process working in dir (the
// session's bash starts in the workspace root), waiting up to d for one.
func bashIn(dir string, d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
				return pid
			}
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(b), ") Z ")
}
