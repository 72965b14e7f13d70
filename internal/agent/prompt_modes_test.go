package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// renderFor renders the system prompt of a run of mode.
func renderFor(t *testing.T, a *Agent, dir string, mode event.Mode, native bool, d *event.Dispatch) string {
	t.Helper()
	r := detachedRunIn(t, a, dir, mode, "the task")
	r.req.format = session.FormatText
	if native {
		r.req.format = session.FormatNative
	}
	if d != nil {
		r.dispatch = d
	}
	out, err := r.systemPrompt()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "<no value>") {
		t.Errorf("%s prompt renders a missing value:\n%s", mode, out)
	}
	return out
}

func TestModePrompts(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"AGENTS.md": "Always run the linter.\n", "go.mod": "module example.com/x\n"})
	scratch := t.TempDir()
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t),
		Config: Config{Model: "m", Tools: orchestratorTools(), ScratchDir: scratch}})
	if err != nil {
		t.Fatal(err)
	}
	lsp := lspTools()
	cases := []struct {
		mode   event.Mode
		native bool
		want   []string
		not    []string
	}{
		{event.ModeAgent, true,
			[]string{"DELEGATION", "1. SCOUT", "2. EXPLORE", "3. WRITE", "4. VERIFY", "Sub-agent practice", "findings are returned only to you",
				"SCRATCH DIRECTORY\nFor throwaway files", "<instructions>", "Always run the linter.", filepath.Join(scratch, "s1"), "COMPLETION SIGNAL", "Do not read or search files through run_terminal_command"},
			[]string{"<project_context>", "<tool_call>{", "SEARCH TIPS", "read_file rather than cat"}},
		{event.ModeAgent, false,
			[]string{"DELEGATION", "<tool_call>{\"name\": \"run_subagent\"", "### run_subagent", "### write_file", "SEARCH TIPS", "give a sub-agent the distinctive text"},
			[]string{"<project_context>", "### read_file"}},
		{event.ModeExplore, true, []string{"explore mode", "EXPLORATION STRATEGY", "<project_context>", "Always run the linter.", "CODE NAVIGATION", "[TASK_COMPLETE]"},
			[]string{"DELEGATION", "SCRATCH"}},
		{event.ModePlan, true, append([]string{"plan mode", "PLAN QUALITY RULES", "estimated complexity", "Call out risks", "EXPLORATION STRATEGY", "<project_context>"}, lsp...),
			[]string{"DELEGATION"}},
		{event.ModeReview, true, []string{"review mode", "bugs first", "CONFIDENCE SCALE", "- 10:", "- 9:", "- 8:", "Low confidence", "CODE INTELLIGENCE FOR REVIEW", "read-only git commands only"},
			[]string{"security problems only"}},
		{event.ModeSecurityReview, true, append([]string{"security-review mode", "security problems only", "CONFIDENCE SCALE", "Low confidence", "CODE INTELLIGENCE FOR SECURITY REVIEW"}, lsp...),
			[]string{"bugs first"}},
		{event.ModeDeepExplore, true, []string{"deep-explore mode", "1. MAP", "2. TRACE DEPTH-FIRST", "3. CROSS-CUTTING ANALYSIS", "4. SYNTHESIZE",
			"DEPTH OVER BREADTH", "DON'T STOP EARLY", "FOLLOW IMPORTS", "USE PARALLEL CALLS", "DELEGATE BREADTH", "<project_context>"}, nil},
		{event.ModeChat, true, append([]string{"TOOL USAGE", "CODE NAVIGATION", "USER-PROVIDED CONTEXT"}, lsp...), []string{"[TASK_COMPLETE] when"}},
		{event.ModeExplore, false, []string{"<tool_call>{\"name\": \"read_file\"", "### search_workspace", "SEARCH TIPS", "<project_context>"}, []string{"### write_file"}},
	}
	for _, tc := range cases {
		name := string(tc.mode) + map[bool]string{true: "/native", false: "/text"}[tc.native]
		t.Run(name, func(t *testing.T) {
			got := renderFor(t, a, dir, tc.mode, tc.native, nil)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("unexpected %q in:\n%s", n, got)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(scratch, "s1")); err != nil {
		t.Errorf("the scratch directory was not created: %v", err)
	}
}

// doingTasks(intent): the task rules adapt to the classification.
func TestTaskRulesFollowIntent(t *testing.T) {
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t), Config: Config{Model: "m", Tools: orchestratorTools()}})
	if err != nil {
		t.Fatal(err)
	}
	modify := "This task changes existing code. Make targeted changes"
	create := "This task adds something new. Follow the project's existing patterns"
	for _, tc := range []struct {
		intent   string
		has, not string
	}{
		{event.IntentModify, modify, create},
		{event.IntentCreate, create, modify},
		{event.IntentMixed, "Understand before you change", modify},
	} {
		got := renderFor(t, a, t.TempDir(), event.ModeAgent, true, &event.Dispatch{Intent: tc.intent, NeedsWrite: true})
		if !strings.Contains(got, tc.has) || strings.Contains(got, tc.not) {
			t.Errorf("intent %s: want %q and not %q in:\n%s", tc.intent, tc.has, tc.not, got)
		}
	}
}

// The scratch directory: writes there are no change of the task, and it
// is gone when the turn ends — also when the state directory is reached
// through a symlink (macOS's /var → /private/var), since tools report
// resolved paths.
func TestScratchDirectory(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testScratchDirectory(t, t.TempDir()) })
	t.Run("through a symlink", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(t.TempDir(), link); err != nil {
			t.Skip("no symlinks here:", err)
		}
		testScratchDirectory(t, link)
	})
}

func testScratchDirectory(t *testing.T, scratch string) {
	h := newModeHarness(t, modeOpt{cfg: Config{ScratchDir: scratch}})
	dir := filepath.Join(scratch, h.sess.ID)
	h.srv.Enqueue(
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path": "`+filepath.Join(dir, "try.sh")+`", "content": "echo hi\n"}`)),
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path": "real.txt", "content": "kept\n"}`)),
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
	)
	res := h.prompt("make real.txt")
	if res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	r := h.toolResults()
	if len(r) != 2 || r[0].IsError {
		t.Fatalf("writing to the scratch directory: %+v", r)
	}
	if len(res.FilesChanged) != 1 || res.FilesChanged[0] != "real.txt" {
		t.Errorf("files changed = %v, want only real.txt", res.FilesChanged)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("scratch directory left behind: %v", err)
	}
	for _, ap := range payloads[event.ApprovalRequested](h.live) {
		t.Errorf("writing to the scratch directory asked for approval: %+v", ap)
	}
}
