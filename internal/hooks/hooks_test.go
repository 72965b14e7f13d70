package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/trust"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func settings(event, matcher, command string, timeout float64) string {
	h := map[string]any{"type": "command", "command": command}
	if timeout > 0 {
		h["timeout"] = timeout
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": []any{h}}}}})
	return string(b)
}

func runner(t *testing.T, event, matcher, command string, timeout float64) (*Runner, string) {
	t.Helper()
	ws := t.TempDir()
	cfg := t.TempDir()
	writeFile(t, filepath.Join(cfg, UserFileName), settings(event, matcher, command, timeout))
	files, warns := Load(LoadOptions{Workspace: ws, ConfigDir: cfg})
	if len(warns) > 0 || len(files) != 1 {
		t.Fatalf("Load: %d files, %q", len(files), warns)
	}
	return New(Options{Files: files, Workspace: ws, Env: os.Environ()}), ws
}

func TestExitCodeContract(t *testing.T) {
	cases := []struct {
		name, event, command string
		blocked              bool
		reason, context      string
		exit                 int
	}{
		{"exit 0 goes on", PreToolUse, "exit 0", false, "", "", 0},
		{"exit 2 blocks with stderr", PreToolUse, "echo 'no way' >&2; exit 2", true, "no way", "", 2},
		{"other codes warn", PreToolUse, "echo oops >&2; exit 1", false, "", "", 1},
		{"JSON deny", PreToolUse, `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on main"}}'`, true, "not on main", "", 0},
		{"JSON block", PostToolUse, `echo '{"decision":"block","reason":"lint failed"}'`, true, "lint failed", "", 0},
		{"continue false", PreToolUse, `echo '{"continue":false,"stopReason":"halt"}'`, true, "halt", "", 0},
		{"plain stdout is prompt context", UserPromptSubmit, "echo 'branch: main'", false, "", "branch: main", 0},
		{"additionalContext", PostToolUse, `echo '{"hookSpecificOutput":{"additionalContext":"formatted"}}'`, false, "", "formatted", 0},
		{"plain stdout of a tool hook is ignored", PreToolUse, "echo hello", false, "", "", 0},
		{"exit 2 at session start only warns", SessionStart, "echo no >&2; exit 2", false, "", "", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := runner(t, c.event, "", c.command, 0)
			tool := ""
			if c.event == PreToolUse || c.event == PostToolUse {
				tool = "run_terminal_command"
			}
			res := r.Run(context.Background(), c.event, "s1", tool, nil)
			if res.Blocked != c.blocked || res.Reason != c.reason || res.Context != c.context {
				t.Fatalf("Run = blocked %v reason %q context %q", res.Blocked, res.Reason, res.Context)
			}
			if len(res.Runs) != 1 || res.Runs[0].ExitCode != c.exit || res.Runs[0].Blocked != c.blocked {
				t.Fatalf("runs = %+v", res.Runs)
			}
		})
	}
}

func TestStdinAndEnvironment(t *testing.T) {
	out := filepath.Join(t.TempDir(), "in.json")
	r, ws := runner(t, PreToolUse, "Write|Edit", "cat > '"+out+"'; echo \"$CLAUDE_PROJECT_DIR $OLLY_HOOK_EVENT $PWD\" >> '"+out+"'", 0)
	res := r.BeforeToolInput(context.Background(), "s9", "write_file", json.RawMessage(`{"path":"a/b.go","content":"x"}`))
	if res.Blocked {
		t.Fatal("blocked")
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal("the hook did not run:", err)
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	var in map[string]any
	if err := json.Unmarshal([]byte(first), &in); err != nil {
		t.Fatalf("stdin %q: %v", first, err)
	}
	ti, _ := in["tool_input"].(map[string]any)
	if in["session_id"] != "s9" || in["hook_event_name"] != PreToolUse || in["tool_name"] != "Write" || in["cwd"] != ws ||
		ti["file_path"] != filepath.Join(ws, "a", "b.go") || ti["content"] != "x" {
		t.Fatalf("stdin = %s", first)
	}
	if want := ws + " " + PreToolUse + " " + ws; strings.TrimSpace(rest) != want {
		t.Fatalf("environment/cwd line %q, want %q", rest, want)
	}
	// The matcher: Read is neither Write nor Edit.
	if res := r.BeforeToolInput(context.Background(), "s9", "read_file", json.RawMessage(`{"path":"x"}`)); len(res.Runs) != 0 {
		t.Fatal("a hook for Write|Edit ran for Read")
	}
}

func TestTimeoutKillsHook(t *testing.T) {
	r, _ := runner(t, PreToolUse, "*", "sleep 30 & sleep 30", 0.3)
	start := time.Now()
	res := r.Run(context.Background(), PreToolUse, "s", "read_file", nil)
	if time.Since(start) > 10*time.Second {
		t.Fatal("the timeout did not stop the hook")
	}
	if res.Blocked || len(res.Runs) != 1 || !res.Runs[0].TimedOut || res.Runs[0].ExitCode != -1 {
		t.Fatalf("res = %+v", res)
	}
}

func TestOutputCapped(t *testing.T) {
	r, _ := runner(t, PreToolUse, "", "head -c 1000000 /dev/zero | tr '\\0' x >&2; exit 2", 0)
	res := r.Run(context.Background(), PreToolUse, "s", "read_file", nil)
	if !res.Blocked || len(res.Reason) > maxReason+100 || !strings.Contains(res.Reason, "[truncated]") {
		t.Fatalf("reason of %d bytes", len(res.Reason))
	}
}

func TestProjectHooksNeedTrust(t *testing.T) {
	ws := t.TempDir()
	canary := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, ProjectFile), settings(UserPromptSubmit, "", "touch '"+canary+"'", 0))
	writeFile(t, filepath.Join(ws, ClaudeProjectFile), settings(UserPromptSubmit, "", "touch '"+canary+".claude'", 0))
	store, err := trust.Open(filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	load := func() *Runner {
		files, warns := Load(LoadOptions{Workspace: ws, ClaudeCompat: true})
		if len(warns) > 0 || len(files) != 2 {
			t.Fatalf("Load: %d files, %q", len(files), warns)
		}
		return New(Options{Files: files, Workspace: ws, Trust: store})
	}
	r := load()
	if len(r.Untrusted()) != 2 || r.Has(UserPromptSubmit) {
		t.Fatalf("untrusted %d, has %v", len(r.Untrusted()), r.Has(UserPromptSubmit))
	}
	r.Run(context.Background(), UserPromptSubmit, "s", "", map[string]any{"prompt": "hi"})
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	// Trust the olly file only.
	f := r.Untrusted()[0]
	if f.Source != ProjectFile {
		t.Fatalf("first untrusted = %s", f.Source)
	}
	if err := TrustFile(store, ws, f.File); err != nil {
		t.Fatal(err)
	}
	r = load()
	r.Run(context.Background(), UserPromptSubmit, "s", "", nil)
	if _, err := os.Stat(canary); err != nil {
		t.Fatal("the trusted project hook did not run")
	}
	if _, err := os.Stat(canary + ".claude"); err == nil {
		t.Fatal("the untrusted .claude hook ran")
	}
	// A changed command needs trust again.
	writeFile(t, filepath.Join(ws, ProjectFile), settings(UserPromptSubmit, "", "touch '"+canary+".changed'", 0))
	r = load()
	r.Run(context.Background(), UserPromptSubmit, "s", "", nil)
	if _, err := os.Stat(canary + ".changed"); err == nil {
		t.Fatal("a changed project hook ran without new trust")
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"not json":      `{`,
		"bad matcher":   settings(PreToolUse, "Bash(", "true", 0),
		"no command":    settings(PreToolUse, "", " ", 0),
		"zero timeout?": `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":-1}]}]}}`,
	}
	for name, data := range cases {
		if _, _, err := Parse([]byte(data), "f.json", false); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	hs, warns, err := Parse([]byte(`{"hooks":{"Notification":[{"hooks":[{"type":"command","command":"x"}]}],"Stop":[{"hooks":[{"type":"prompt","command":"x"},{"command":"y","timeout":5}]}]}}`), "f.json", false)
	if err != nil || len(hs) != 1 || hs[0].Command != "y" || hs[0].Timeout != 5*time.Second || len(warns) != 2 {
		t.Fatalf("Parse = %+v, %q, %v", hs, warns, err)
	}
}

func TestMatcher(t *testing.T) {
	cases := []struct {
		matcher, tool string
		want          bool
	}{
		{"", "read_file", true}, {"*", "web_fetch", true},
		{"Bash", "run_terminal_command", true}, {"Bash", "read_file", false},
		{"Write|Edit", "write_file", true}, {"run_terminal_command", "run_terminal_command", true},
		{"mcp__github__.*", "mcp__github__create_issue", true}, {"Read", "ReadX", false},
	}
	for _, c := range cases {
		re, err := compileMatcher(c.matcher)
		if err != nil {
			t.Fatal(err)
		}
		h := Hook{Matcher: c.matcher, re: re}
		if got := h.Matches(c.tool, ClaudeName(c.tool)); got != c.want {
			t.Errorf("%q matches %s = %v", c.matcher, c.tool, got)
		}
	}
}

// TestScriptChangedMidTurn: the Runner lives for a turn; a project script
// the model edits during it stops the file's hooks at their next event
// (a hook_run saying why), while the user's hooks go on running.
func TestScriptChangedMidTurn(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	canary := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, ".olly/hooks/check.sh"), "echo ok >> '"+canary+"'\n")
	writeFile(t, filepath.Join(ws, ProjectFile), settings(PostToolUse, "", "sh .olly/hooks/check.sh", 0))
	writeFile(t, filepath.Join(cfg, UserFileName), settings(PostToolUse, "", "true", 0))
	store, err := trust.Open(filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	files, warns := Load(LoadOptions{Workspace: ws, ConfigDir: cfg})
	if len(warns) > 0 || len(files) != 2 {
		t.Fatalf("Load: %d files, %q", len(files), warns)
	}
	for _, f := range files {
		if f.Project {
			if err := TrustFile(store, ws, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := New(Options{Files: files, Workspace: ws, Trust: store})
	res := r.Run(context.Background(), PostToolUse, "s", "edit_file", nil)
	if len(res.Runs) != 2 || res.Runs[0].ExitCode != 0 || res.Runs[1].ExitCode != 0 {
		t.Fatalf("trusted runs: %+v", res.Runs)
	}
	// The model rewrites the script (an auto-approved edit) mid-turn.
	writeFile(t, filepath.Join(ws, ".olly/hooks/check.sh"), "echo evil >> '"+canary+"'\n")
	res = r.Run(context.Background(), PostToolUse, "s", "edit_file", nil)
	b, err := os.ReadFile(canary)
	if err != nil || string(b) != "ok\n" {
		t.Fatalf("canary = %q, %v: the changed script ran", b, err)
	}
	var refused, user int
	for _, run := range res.Runs {
		switch {
		case run.Source == ProjectFile && run.ExitCode == -1 && strings.Contains(run.Reason, "changed during this turn"):
			refused++
		case run.Command == "true" && run.ExitCode == 0:
			user++
		}
	}
	if refused != 1 || user != 1 || len(res.Runs) != 2 {
		t.Fatalf("runs after the edit: %+v", res.Runs)
	}
}
