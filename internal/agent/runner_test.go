package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/tools"
)

func TestBatchLimits(t *testing.T) {
	tests := []struct {
		name  string
		calls int
		ran   int
		note  string
	}{
		{"under the warning", 7, 7, ""},
		{"warning at 8", 8, 8, "made 8 tool calls. Prefer fewer"},
		{"cap at 15", 17, 15, "made 17 tool calls; only the first 15 ran"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{})
			var parts []llmtest.Part
			for i := 0; i < tt.calls; i++ {
				h.write(fmt.Sprintf("f%d.txt", i), "x\n")
				parts = append(parts, h.call("read_file", fmt.Sprintf(`{"path": "f%d.txt"}`, i)))
			}
			h.srv.Enqueue(llmtest.Reply(parts...), llmtest.Reply(llmtest.Text("Read them. [TASK_COMPLETE]")))
			h.prompt("read all the files")
			ran := 0
			for _, a := range payloads[event.ToolAction](h.live) {
				if a.Status == event.ActionSuccess && !strings.Contains(a.ActionID, ":") {
					ran++
				}
			}
			if ran != tt.ran {
				t.Errorf("%d calls ran, want %d", ran, tt.ran)
			}
			if n := len(payloads[event.ToolResult](h.live)); n != tt.calls {
				t.Errorf("%d results for %d calls: every call needs one", n, tt.calls)
			}
			var notes []string
			for _, c := range payloads[event.ControlMessage](h.live) {
				if c.Kind == event.ControlNote {
					notes = append(notes, c.Content)
				}
			}
			if tt.note == "" && len(notes) != 0 || tt.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tt.note)) {
				t.Errorf("notes = %q, want one with %q", notes, tt.note)
			}
			h.checkHistory()
		})
	}
}

func TestCallsThatCannotRun(t *testing.T) {
	h := newHarness(t, true, harnessOpt{cfg: Config{Tools: []string{"read_file", "write_file"}}})
	h.srv.Enqueue(
		llmtest.Reply(
			h.call("run_terminal_command", `{"command": "ls"}`), // registered, not offered
			h.call("read_file", `not json`),                     // arguments that are no object
			h.call("delete_everything", `{}`),                   // unknown
		),
		llmtest.Reply(llmtest.Text("Nothing worked. [TASK_COMPLETE]")),
	)
	h.prompt("look around")
	if n := len(h.chats()[0].Tools); n != 2 {
		t.Errorf("%d tools offered, want the 2 configured", n)
	}
	results := payloads[event.ToolResult](h.live)
	if len(results) != 3 {
		t.Fatalf("results = %+v", results)
	}
	for i, want := range []string{`Tool "run_terminal_command" is not available here. Available tools: read_file, write_file.`,
		"were not a JSON object", `Tool "delete_everything" is not available here`} {
		if !results[i].IsError || !strings.Contains(results[i].Content, want) {
			t.Errorf("result %d = %+v, want an error with %q", i, results[i], want)
		}
	}
	errs := 0
	for _, a := range payloads[event.ToolAction](h.live) {
		if a.Status == event.ActionError {
			errs++
		}
	}
	if errs != 3 {
		t.Errorf("%d failed actions shown, want 3", errs)
	}
	h.checkHistory()
}

func TestContinuationStrategies(t *testing.T) {
	tests := []struct {
		strategy string
		packet   string
	}{
		{StrategyFull, `<agent_control>{"state":"need_tools","iteration":1,"maxIterations":25,"remainingIterations":24,"filesChanged":[],"note":"` + noteToolResults + `"}</agent_control>`},
		{StrategyStandard, `<agent_control>{"state":"need_tools","iteration":1,"remainingIterations":24,"note":"` + noteToolResults + `"}</agent_control>`},
		{StrategyMinimal, `<agent_control>{"state":"need_tools"}</agent_control>`},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{cfg: Config{ContinuationStrategy: tt.strategy}})
			h.write("a.txt", "<a&b>\n")
			h.srv.Enqueue(llmtest.Reply(h.call("read_file", `{"path": "a.txt"}`)), llmtest.Reply(llmtest.Text("ok [TASK_COMPLETE]")))
			h.prompt("read a.txt")
			want := "Reminder — your task: read a.txt\n\n" + tt.packet + "\n" + antiRepetition
			if got := h.lastMessage(1).Content; got != want {
				t.Errorf("continuation:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestGroupTitles(t *testing.T) {
	tests := map[string][]string{
		"Writing files":             {"read_file", "write_file"},
		"Running commands":          {"run_terminal_command", "read_file"},
		"Searching codebase":        {"search_workspace", "read_file"},
		"Reading files":             {"read_file"},
		"Analyzing code":            {"find_definition"},
		"Inspecting file structure": {"get_document_symbols"},
		"Delegating subtask":        {"run_subagent"},
		"Listing files":             {"list_files"},
		"Using tools":               {"mcp_thing"},
	}
	for want, names := range tests {
		if got := groupTitle(names); got != want {
			t.Errorf("groupTitle(%q) = %q, want %q", names, got, want)
		}
	}
}

// chattyTool streams output from several goroutines, as a command's
// stdout and stderr readers do.
type chattyTool struct{}

func (chattyTool) Spec() llm.Tool {
	return llm.Tool{Name: "chatty", Description: "Streams output.", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (chattyTool) Run(ctx context.Context, env *tools.Env, _ tools.Args) (*tools.Result, error) {
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				_ = env.Report.Output(ctx, fmt.Sprintf("line %d.%d\n", i, j))
			}
		}()
	}
	wg.Wait()
	return &tools.Result{Content: "done"}, nil
}

func TestToolEmitsFromGoroutines(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	reg, err := tools.NewRegistry(chattyTool{})
	if err != nil {
		t.Fatal(err)
	}
	h.agent.tools = reg
	h.srv.Enqueue(llmtest.Reply(h.call("chatty", `{}`)), llmtest.Reply(llmtest.Text("ok [TASK_COMPLETE]")))
	if res := h.prompt("talk"); res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	if n := len(payloads[event.ToolOutput](h.live)); n != 80 {
		t.Errorf("%d output events, want 80", n)
	}
}
