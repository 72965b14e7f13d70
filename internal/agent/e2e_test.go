package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/timeline"
)

// paths runs a scenario on both tool-calling paths.
func paths(t *testing.T, fn func(t *testing.T, native bool)) {
	for _, native := range []bool{true, false} {
		name := "text"
		if native {
			name = "native"
		}
		t.Run(name, func(t *testing.T) { fn(t, native) })
	}
}

func TestCreateFile(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("I'll create the file."), h.call("write_file", `{"path": "hello.txt", "content": "hi\n"}`)),
			llmtest.Reply(llmtest.Text("Created hello.txt. [TASK_COMPLETE]")),
		)
		res := h.prompt("create hello.txt that says hi")

		if got, ok := h.read("hello.txt"); !ok || got != "hi\n" {
			t.Errorf("hello.txt = %q (exists %v), want %q", got, ok, "hi\n")
		}
		if res.Status != event.FinishDone || res.Iterations != 2 || res.FinalText != "Created hello.txt." {
			t.Errorf("result = %+v", res)
		}
		if diff := cmp.Diff([]string{"hello.txt"}, res.FilesChanged); diff != "" {
			t.Errorf("files changed (-want +got):\n%s", diff)
		}
		reqs := h.chats()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		sys := reqs[0].Messages[0].Content
		if native {
			if len(reqs[0].Tools) != 4 || strings.Contains(sys, "<tool_call>{") {
				t.Errorf("native request: %d tools, system prompt has call format: %v", len(reqs[0].Tools), strings.Contains(sys, "<tool_call>{"))
			}
		} else {
			if len(reqs[0].Tools) != 0 {
				t.Errorf("text request sent %d tools", len(reqs[0].Tools))
			}
			mustContain(t, "text system prompt", sys, "<tool_call>{", "### write_file", "### run_terminal_command")
		}
		m := reqs[1].Messages
		if native {
			// assistant(tool_calls) → tool(tool_name, id) → user(reminder + packet)
			if len(m) != 5 || m[2].Role != llm.RoleAssistant || len(m[2].ToolCalls) != 1 || m[2].Content != "I'll create the file." ||
				m[3].Role != llm.RoleTool || m[3].ToolName != "write_file" || m[3].ToolCallID != m[2].ToolCalls[0].ID || m[3].ToolCallID == "" {
				t.Fatalf("native history: %+v", m)
			}
			if strings.Contains(m[2].Content, "[Called:]") {
				t.Errorf("native assistant content has [Called:]: %q", m[2].Content)
			}
			mustContain(t, "tool result", m[3].Content, "Created hello.txt")
		} else {
			// assistant(content + [Called:]) → user(packet with the results inside)
			if len(m) != 4 || m[2].Role != llm.RoleAssistant || len(m[2].ToolCalls) != 0 || m[2].Content != "I'll create the file.\n[Called:] write_file" {
				t.Fatalf("text history: %+v", m)
			}
			mustContain(t, "continuation", m[3].Content, "<agent_control>{", "[write_file result]\nCreated hello.txt", "</agent_control>")
			if strings.Index(m[3].Content, "[write_file result]") > strings.Index(m[3].Content, "</agent_control>") {
				t.Errorf("results are outside the packet: %q", m[3].Content)
			}
		}
		last := m[len(m)-1].Content
		mustContain(t, "continuation", last, "Reminder — your task: create hello.txt that says hi", `"state":"need_tools"`, `"iteration":1`,
			`"maxIterations":25`, `"remainingIterations":24`, `"filesChanged":["hello.txt"]`)
		if !strings.HasSuffix(last, antiRepetition) {
			t.Errorf("continuation does not end with the anti-repetition line: %q", last)
		}
		h.checkHistory()
		checkParity(t, h)

		// What the person saw: one group with the write, the final message.
		groups := payloads[event.ProgressGroupStart](h.live)
		if len(groups) != 1 || groups[0].Title != "Writing files" {
			t.Errorf("groups = %+v", groups)
		}
		finals := payloads[event.FinalMessage](h.live)
		if len(finals) != 1 || finals[0].Text != "Created hello.txt." || finals[0].Fallback {
			t.Errorf("final messages = %+v", finals)
		}
		for _, d := range payloads[event.TextDelta](h.live) {
			if strings.Contains(d.Text, "TASK") || strings.Contains(d.Text, "<tool_call") {
				t.Errorf("text delta leaks markup: %q", d.Text)
			}
		}
	})
}

// checkParity asserts that the live events and the stored ones render the
// same timeline (seed critical rule #1).
func checkParity(t *testing.T, h *harness) {
	t.Helper()
	live := timeline.Build(h.live)
	stored := timeline.Build(h.stored())
	if diff := cmp.Diff(stored, live); diff != "" {
		t.Errorf("live timeline differs from the stored one (-stored +live):\n%s", diff)
	}
}

func TestReadModifyWrite(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.write("count.txt", "41\n")
		h.srv.Enqueue(llmtest.Reply(h.call("read_file", `{"path": "count.txt"}`)))
		// The model reacts to what it read: it writes the number plus one.
		h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
			last := r.Messages[len(r.Messages)-2].Content // the read result (native) …
			if !native {
				last = r.LastMessage().Content // … or the packet holding it (text)
			}
			if strings.Contains(last, "41") && !strings.Contains(last, "Wrote") {
				return llmtest.Reply(llmtest.Text("It says 41; writing 42."), h.call("write_file", `{"path": "count.txt", "content": "42\n"}`))
			}
			return llmtest.Reply(llmtest.Text("count.txt now says 42. [TASK_COMPLETE]"))
		})
		res := h.prompt("increment the number in count.txt")
		if got, _ := h.read("count.txt"); got != "42\n" {
			t.Errorf("count.txt = %q, want 42", got)
		}
		if res.Status != event.FinishDone || res.Iterations != 3 || res.FinalText != "count.txt now says 42." {
			t.Errorf("result = %+v", res)
		}
		titles := []string{}
		for _, g := range payloads[event.ProgressGroupStart](h.live) {
			titles = append(titles, g.Title)
		}
		if diff := cmp.Diff([]string{"Reading files", "Writing files"}, titles); diff != "" {
			t.Errorf("group titles (-want +got):\n%s", diff)
		}
		h.checkHistory()
		checkParity(t, h)
	})
}

func TestSearchThenEdit(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.write("a.go", "package a\n\nfunc OldName() {}\n")
		h.write("b.go", "package a\n\nvar _ = OldName\n")
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("Searching for uses."), h.call("search_workspace", `{"query": "OldName"}`)),
			llmtest.Reply(
				h.call("write_file", `{"path": "a.go", "content": "package a\n\nfunc NewName() {}\n"}`),
				h.call("write_file", `{"path": "b.go", "content": "package a\n\nvar _ = NewName\n"}`)),
			llmtest.Reply(llmtest.Text("Renamed OldName to NewName in a.go and b.go. [TASK_COMPLETE]")),
		)
		res := h.prompt("rename OldName to NewName")
		a, _ := h.read("a.go")
		b, _ := h.read("b.go")
		if !strings.Contains(a, "NewName") || !strings.Contains(b, "NewName") {
			t.Errorf("files not edited: a.go %q b.go %q", a, b)
		}
		if diff := cmp.Diff([]string{"a.go", "b.go"}, res.FilesChanged); diff != "" {
			t.Errorf("files changed (-want +got):\n%s", diff)
		}
		// The search result reached the model before it edited.
		second := h.chats()[1]
		var joined strings.Builder
		for _, m := range second.Messages {
			joined.WriteString(m.Content + "\n")
		}
		mustContain(t, "request 2", joined.String(), "── a.go ──", "→ 3: func OldName() {}", "── b.go ──")
		// The second response wrote nothing but calls: natively its
		// history content is empty (the calls say it all, and qwen2.5-style
		// templates would show a content instead of the calls); in the
		// text format it is the deterministic summary (pitfall #38).
		third := h.chats()[2].Messages
		var asst []string
		for _, m := range third {
			if m.Role == llm.RoleAssistant {
				asst = append(asst, m.Content)
			}
		}
		want := ""
		if !native {
			want = "I wrote a.go and wrote b.go\n[Called:] write_file, write_file"
		}
		if len(asst) != 2 || asst[1] != want {
			t.Errorf("assistant history = %q, want second %q", asst, want)
		}
		h.checkHistory()
		checkParity(t, h)
	})
}

func TestRunCommandAndReact(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.srv.Enqueue(llmtest.Reply(llmtest.Text("Running the check."), h.call("run_terminal_command", `{"command": "cat config.ini || exit 3"}`)))
		h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
			var seen strings.Builder
			for _, m := range r.Messages[1:] {
				seen.WriteString(m.Content)
			}
			s := seen.String()
			switch {
			case strings.Contains(s, "Exit code 3") && !strings.Contains(s, "Created config.ini"):
				return llmtest.Reply(llmtest.Text("config.ini is missing; creating it."), h.call("write_file", `{"path": "config.ini", "content": "debug=true\n"}`))
			case strings.Contains(s, "Created config.ini") && !strings.Contains(s, "Exit code 0"):
				return llmtest.Reply(h.call("run_terminal_command", `{"command": "cat config.ini"}`))
			}
			return llmtest.Reply(llmtest.Text("The check passes now. [TASK_COMPLETE]"))
		})
		res := h.prompt("make `cat config.ini` succeed")
		if res.Status != event.FinishDone || res.Iterations != 4 {
			t.Fatalf("result = %+v", res)
		}
		outs := []string{}
		for _, r := range payloads[event.ToolResult](h.live) {
			if r.ToolName == "run_terminal_command" {
				outs = append(outs, r.Content)
			}
		}
		if len(outs) != 2 || !strings.HasPrefix(outs[0], "Exit code 3") || outs[1] != "Exit code 0\ndebug=true\n" {
			t.Errorf("command results = %q", outs)
		}
		h.checkHistory()
	})
}

func TestThinkingModelWithEmptyContent(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{caps: []string{"completion", "thinking"}, cfg: Config{EnableThinking: true}})
		h.write("a.go", "package a // says hi\n")
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Thinking("I should read a.go first."), h.call("read_file", `{"path": "a.go"}`)),
			llmtest.Reply(llmtest.Thinking("It says hi."), llmtest.Text("a.go says hi. [TASK_COMPLETE]")),
		)
		res := h.prompt("what does a.go say?")
		if res.Status != event.FinishDone || res.FinalText != "a.go says hi." {
			t.Fatalf("result = %+v", res)
		}
		reqs := h.chats()
		if reqs[0].Think == nil || !reqs[0].Think.Enabled {
			t.Errorf("think = %+v, want enabled", reqs[0].Think)
		}
		asst := reqs[1].Messages[2]
		want := ""
		if !native {
			want = "I read a.go\n[Called:] read_file"
		}
		if asst.Role != llm.RoleAssistant || asst.Content != want || asst.Thinking != "" {
			t.Errorf("assistant in history = %+v, want content %q and no thinking", asst, want)
		}
		blocks := payloads[event.ThinkingBlock](h.live)
		if len(blocks) != 2 || blocks[0].Content != "I should read a.go first." || blocks[1].Iteration != 2 {
			t.Errorf("thinking blocks = %+v", blocks)
		}
		h.checkHistory()
		checkParity(t, h)
	})
}
