package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestNeedsWrite(t *testing.T) {
	tests := map[string]bool{
		"add a test for Parse":                true,
		"Can you fix the bug in @main.go?":    true,
		"rename OldName to NewName":           true,
		"create notes.txt with our notes":     true,
		"what does @add.go do?":               false,
		"explain how to add a route":          false,
		"How do I create a branch?":           false,
		"run the tests":                       false,
		"is there a bug in parse?":            false,
		"summarize the architecture":          false,
		"   ":                                 false,
		"please update the README for v2":     true,
		"@fix.go @add.go look at these files": false,
	}
	for prompt, want := range tests {
		if got := needsWrite(prompt); got != want {
			t.Errorf("needsWrite(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// fakeDiagnostics reports errors until its file is fixed.
type fakeDiagnostics struct {
	h     *harness
	calls int
	fail  bool
}

func (d *fakeDiagnostics) Check(_ context.Context, files []string) (DiagnosticsReport, error) {
	d.calls++
	if d.fail {
		return DiagnosticsReport{}, errors.New("gopls crashed")
	}
	rep := DiagnosticsReport{Unchecked: []string{"notes.md"}}
	if src, _ := d.h.read("main.go"); strings.Contains(src, "undefined") {
		rep.Errors, rep.Text = 1, "main.go:3:2: undefined: fmt.Printn"
	}
	return rep, nil
}

func TestDiagnosticsGate(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		d := &fakeDiagnostics{}
		h := newHarness(t, native, harnessOpt{diag: d})
		d.h = h
		h.srv.Enqueue(
			llmtest.Reply(h.call("write_file", `{"path": "main.go", "content": "package main\n// undefined\n"}`)),
			llmtest.Reply(llmtest.Text("Written. [TASK_COMPLETE]")),
			llmtest.Reply(h.call("write_file", `{"path": "main.go", "content": "package main\n"}`)),
			llmtest.Reply(llmtest.Text("Fixed. [TASK_COMPLETE]")),
		)
		res := h.prompt("write main.go")
		if res.Status != event.FinishDone || res.Iterations != 4 || res.FinalText != "Fixed." {
			t.Fatalf("result = %+v", res)
		}
		if d.calls != 1 {
			t.Errorf("diagnostics ran %d times, want once per run", d.calls)
		}
		last := h.lastMessage(2).Content
		mustContain(t, "diagnostics continuation", last, `"state":"need_fixes"`, "main.go:3:2: undefined: fmt.Printn", "</agent_control>\n"+antiRepetition)
		var kinds []string
		for _, c := range payloads[event.ControlMessage](h.live) {
			kinds = append(kinds, c.Kind)
		}
		mustContain(t, "control kinds", strings.Join(kinds, ","), event.ControlDiagnostics)
		warns := payloads[event.Warning](h.live)
		found := false
		for _, w := range warns {
			found = found || strings.Contains(w.Message, "No diagnostics source covers notes.md")
		}
		if !found {
			t.Errorf("no warning about the unchecked file: %+v", warns)
		}
		h.checkHistory()
	})
}

// Without a diagnostics source the gate says so and never claims the
// files are free of errors.
func TestNoDiagnosticsSourceIsReportedHonestly(t *testing.T) {
	tests := []struct {
		name string
		diag Diagnostics
		want string
	}{
		{"no source", nil, "No diagnostics source is available, so a.txt was not checked for errors."},
		{"source failed", &fakeDiagnostics{fail: true}, "Checking a.txt for errors failed (gopls crashed), so it was not verified."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{diag: tt.diag})
			if d, ok := tt.diag.(*fakeDiagnostics); ok {
				d.h = h
			}
			h.srv.Enqueue(
				llmtest.Reply(h.call("write_file", `{"path": "a.txt", "content": "x"}`)),
				llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
			)
			if res := h.prompt("create a.txt"); res.Status != event.FinishDone {
				t.Fatalf("result = %+v", res)
			}
			warns := payloads[event.Warning](h.live)
			if len(warns) != 1 || warns[0].Message != tt.want {
				t.Errorf("warnings = %+v, want %q", warns, tt.want)
			}
			for _, ev := range h.live {
				if f, ok := ev.Data.(event.FinalMessage); ok && strings.Contains(strings.ToLower(f.Text), "no error") {
					t.Errorf("final message claims no errors: %q", f.Text)
				}
			}
		})
	}
}

// A completion in the same response as a failing call is refused once, so
// the model sees the failure.
func TestCompletionWithFailedCall(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("Reading and done. [TASK_COMPLETE]"), h.call("read_file", `{"path": "missing.txt"}`)),
		llmtest.Reply(llmtest.Text("The file does not exist, so there is nothing to show. [TASK_COMPLETE]")),
	)
	res := h.prompt("show missing.txt")
	if res.Status != event.FinishDone || res.Iterations != 2 {
		t.Fatalf("result = %+v", res)
	}
	mustContain(t, "continuation", h.lastMessage(1).Content, "failed or was refused", `"state":"need_fixes"`)
}

// A model that keeps answering without tools and without the signal is
// nudged once; its second such answer ends the turn.
func TestAnswerWithoutSignal(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("It is a parser.")),
		llmtest.Reply(llmtest.Text("It parses flags.")),
	)
	res := h.prompt("what is this project?")
	if res.Status != event.FinishDone || res.Iterations != 2 || res.FinalText != "It parses flags." {
		t.Fatalf("result = %+v", res)
	}
	mustContain(t, "nudge", h.lastMessage(1).Content, "called no tools and did not say [TASK_COMPLETE]")
	checkParity(t, h)
}
