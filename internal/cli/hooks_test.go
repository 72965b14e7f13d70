package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestHooksTrustFlow(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, filepath.Join(e.home, ".config", "olly", "settings.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo user"}]}]}}`)
	project := filepath.Join(e.ws, ".olly", "settings.json")
	e.write(t, project, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh","timeout":5}]}]}}`)

	list := func() []map[string]any {
		t.Helper()
		code, out, errOut := e.run(t, "hooks", "list", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var lines []map[string]any
		if err := json.Unmarshal([]byte(out), &lines); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return lines
	}
	runs := func(lines []map[string]any) map[string]bool {
		m := map[string]bool{}
		for _, l := range lines {
			m[l["command"].(string)] = l["runs"].(bool)
		}
		return m
	}
	if got := runs(list()); !got["echo user"] || got["./guard.sh"] || len(got) != 2 {
		t.Fatalf("before trust: %v", got)
	}
	code, out, _ := e.run(t, "hooks", "trust")
	if code != 0 || !strings.Contains(out, "Trusted .olly/settings.json") || !strings.Contains(out, "./guard.sh") {
		t.Fatalf("trust: %d %s", code, out)
	}
	if got := runs(list()); !got["./guard.sh"] {
		t.Fatalf("after trust: %v", got)
	}
	// A changed file is a different program.
	e.write(t, project, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./other.sh"}]}]}}`)
	if got := runs(list()); got["./other.sh"] {
		t.Fatalf("a changed project file runs without new trust: %v", got)
	}
	e.run(t, "hooks", "trust", ".olly/settings.json")
	if code, out, _ := e.run(t, "hooks", "revoke"); code != 0 || !strings.Contains(out, "Revoked") {
		t.Fatalf("revoke: %d %s", code, out)
	}
	if got := runs(list()); got["./other.sh"] {
		t.Fatalf("after revoke: %v", got)
	}
	if code, _, errOut := e.run(t, "hooks", "trust", "elsewhere.json"); code == 0 || !strings.Contains(errOut, "not a project hook file") {
		t.Fatalf("trust of an unknown file: %d %s", code, errOut)
	}
}
