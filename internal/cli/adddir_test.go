package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Only a person widens the workspace: --yes does not let the agent write a
// file outside it, --add-dir does (issue 13).
func TestPrintOutsideWorkspaceNeedsAddDir(t *testing.T) {
	for _, tc := range []struct {
		name    string
		addDir  bool
		written bool
	}{
		{"--yes alone", false, false},
		{"--yes with --add-dir", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPrintEnv(t)
			outside := t.TempDir()
			target := filepath.Join(outside, "planted.txt")
			args, _ := json.Marshal(map[string]string{"path": target, "content": "x\n"})
			e.script(
				llmtest.Reply(llmtest.ToolCall("write_file", string(args))),
				llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
			)
			run := []string{"-p", "--yes", "--output", "json"}
			if tc.addDir {
				run = append(run, "--add-dir", outside)
			}
			code, out, errOut := e.runWith(t, "", nil, append(run, "write the file")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			_, err := os.Stat(target)
			if (err == nil) != tc.written {
				t.Fatalf("written = %v, want %v", err == nil, tc.written)
			}
			asked := false
			for _, ev := range decodeEvents(t, out) {
				if r, ok := ev.Data.(event.ApprovalRequested); ok && r.Kind == event.ApprovalDirectory {
					asked = true
				}
			}
			if asked == tc.addDir {
				t.Fatalf("directory request = %v with --add-dir %v", asked, tc.addDir)
			}
		})
	}
}

func TestPrintAddDirMissingIsAUsageError(t *testing.T) {
	e := newPrintEnv(t)
	missing := filepath.Join(t.TempDir(), "nope")
	code, _, errOut := e.runWith(t, "", nil, "-p", "--add-dir", missing, "hi")
	if code != 2 || !strings.Contains(errOut, missing) {
		t.Fatalf("exit %d, stderr %q: want 2 naming %s", code, errOut, missing)
	}
}
