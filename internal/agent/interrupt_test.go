package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// In the immediate interrupt mode a steering message that arrives while a
// response's calls run stops the calls after the running one; in wait
// mode they all run.
func TestInterruptModeStopsRemainingCalls(t *testing.T) {
	for _, mode := range []session.InterruptMode{session.InterruptImmediate, session.InterruptWait} {
		t.Run(string(mode), func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{})
			h.write("a.txt", "A\n")
			h.write("b.txt", "B\n")
			h.svc.SetQueueModes(h.sess.ID, session.QueueModes{Interrupt: mode})
			n := 0
			h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
				n++
				if n == 1 {
					// The person steers while the model answers.
					if _, err := h.svc.Submit(context.Background(), h.sess.ID, session.PromptInput{Text: "stop reading"}, session.WhenBusySteer); err != nil {
						t.Errorf("steer: %v", err)
					}
					return llmtest.Reply(llmtest.ToolCall("read_file", `{"path":"a.txt"}`), llmtest.ToolCall("read_file", `{"path":"b.txt"}`))
				}
				return llmtest.Reply(llmtest.Text("Stopped. [TASK_COMPLETE]"))
			})
			h.prompt("read both files")
			var results []string
			for _, m := range h.chats()[1].Messages {
				if m.Role == "tool" {
					results = append(results, m.Content)
				}
			}
			skipped := len(results) == 2 && strings.Contains(results[1], "Not run: the person sent a message")
			if len(results) != 2 || strings.Contains(results[0], "Not run") || skipped != (mode == session.InterruptImmediate) {
				t.Errorf("tool results in %s mode: %q", mode, results)
			}
		})
	}
}
