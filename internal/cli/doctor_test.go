package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/exetrim"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func findCheck(t *testing.T, checks []check, area string) check {
	t.Helper()
	for _, c := range checks {
		if c.Area == area {
			return c
		}
	}
	t.Fatalf("no %q check in %+v", area, checks)
	return check{}
}

func runDoctorJSON(t *testing.T, e *testEnv, args ...string) (int, []check, string) {
	t.Helper()
	code, out, errOut := e.run(t, append(args, "doctor", "--json")...)
	var checks []check
	if err := json.Unmarshal([]byte(out), &checks); err != nil {
		t.Fatalf("%v\nstdout %s\nstderr %s", err, out, errOut)
	}
	return code, checks, errOut
}

func TestDoctorHealthy(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithVersion("0.12.6"))
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools", "thinking"))
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	srv.AddModel("nomic-embed-text:latest", llmtest.Caps("embedding"))
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	e.write(t, e.global(), "agentMode.model: qwen3:8b\ncompletionMode.model: qwen2.5-coder:1.5b\n")
	code, checks, errOut := runDoctorJSON(t, e, "--base-url", srv.URL())
	for _, c := range checks {
		if c.Status == checkFail {
			t.Errorf("check failed: %+v (stderr %s)", c, errOut)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if s := findCheck(t, checks, "server"); !strings.Contains(s.Detail, "Ollama 0.12.6") || !strings.Contains(s.Detail, "3 models") {
		t.Errorf("server check = %+v", s)
	}
	if a := findCheck(t, checks, "agent model"); a.Status != checkOK || !strings.Contains(a.Detail, "qwen3:8b") {
		t.Errorf("agent model check = %+v", a)
	}
	if c := findCheck(t, checks, "completionMode.model"); c.Status != checkOK {
		t.Errorf("completion check = %+v", c)
	}
	if c := findCheck(t, checks, "embedding model"); c.Status != checkOK {
		t.Errorf("embedding check = %+v", c)
	}
}

func TestDoctorProblemsComeWithFixes(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("phi3:mini", llmtest.Caps("completion"))
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	e.write(t, e.global(), "agentMode.model: phi3:mini\nchatMode.model: ghost\ncompletionMode.model: phi3:mini\n")
	code, checks, _ := runDoctorJSON(t, e, "--base-url", srv.URL())
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1 for a missing model", code)
	}
	tests := []struct{ area, status, detail, fix string }{
		{"agent model", checkWarn, "text tool calls", "tools capability"},
		{"chatMode.model", checkFail, "ghost is not installed", "ollama pull ghost"},
		{"completionMode.model", checkWarn, "lacks fim", "olly models"},
		{"embedding model", checkWarn, "nomic-embed-text is not installed", "ollama pull nomic-embed-text"},
	}
	for _, tt := range tests {
		c := findCheck(t, checks, tt.area)
		if c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) || !strings.Contains(c.Fix, tt.fix) {
			t.Errorf("%s = %+v, want status %s detail ~%q fix ~%q", tt.area, c, tt.status, tt.detail, tt.fix)
		}
	}
}

func TestDoctorNoToolModelAndNoServer(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("gemma3:1b", llmtest.Caps("completion"))
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	_, checks, _ := runDoctorJSON(t, e, "--base-url", srv.URL())
	if c := findCheck(t, checks, "agent model"); c.Status != checkFail || !strings.Contains(c.Detail, "ollama pull") {
		t.Errorf("agent model with no tool model = %+v", c)
	}
	url := srv.URL()
	srv.Close()
	code, checks, _ := runDoctorJSON(t, e, "--base-url", url)
	c := findCheck(t, checks, "server")
	if code != ExitFailure || c.Status != checkFail || !strings.Contains(c.Fix, "ollama serve") {
		t.Errorf("down server: exit %d, check %+v", code, c)
	}
	// The local checks still run when the server is down.
	findCheck(t, checks, "data directory")
	findCheck(t, checks, "bash")
}

func TestDoctorLocalChecks(t *testing.T) {
	ios, out, _ := Test("")
	cfgErr := errors.New("config.yaml:3: agent.maxIterations: expected an integer")
	opts := &doctorOptions{IO: ios, Config: func() (*config.Config, error) { return nil, cfgErr },
		Paths: func() (config.Paths, error) {
			return config.Paths{DataDir: "/proc/olly-cannot-write-here", StateDir: t.TempDir()}, nil
		},
		LookPath: func(name string) (string, error) {
			if name == "bash" {
				return exec.LookPath(name)
			}
			return "", exec.ErrNotFound
		}}
	err := runDoctor(context.Background(), opts)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"FAIL  settings", "config.yaml:3", "FAIL  data directory", "warn  git", "install git", "warn  lsp go", "go install golang.org/x/tools/gopls"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestDoctorMemoryLine checks the doctor says whether the executable is
// trimmed, and why not when it is not: the line follows exetrim.Status in
// this process, armed or not.
func TestDoctorMemoryLine(t *testing.T) {
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	_, checks, _ := runDoctorJSON(t, e, "--base-url", "http://127.0.0.1:1")
	m := findCheck(t, checks, "memory")
	armed, why := exetrim.Status()
	switch {
	case m.Status != checkOK:
		t.Errorf("memory check = %+v, want ok either way", m)
	case armed && !strings.Contains(m.Detail, "one page at a time"):
		t.Errorf("armed, but the memory check says %q", m.Detail)
	case !armed && (!strings.Contains(m.Detail, "as usual") || why != "" && !strings.Contains(m.Detail, why)):
		t.Errorf("not armed (%q), but the memory check says %q", why, m.Detail)
	}
}
