package agent

import (
	"strings"
	"sync"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Instruction files and skills are read once, at the start of the person's
// turn, and its sub-agents and the skill tool share them: an edit made
// while the turn runs reaches none of them, and applies from the next
// prompt on.
func TestSubagentsShareTheTurnsExtensions(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Tools: orchestratorTools()}, skill: true})
	h.write("AGENTS.md", "FIRST RULE\n")
	h.write(".olly/skills/first/SKILL.md", "---\ndescription: the first skill\n---\nbody\n")
	ro := &roles{
		main: []llmtest.Response{
			llmtest.Reply(subCall("look around", "Look", "")),
			llmtest.Reply(llmtest.Text("Looked. [TASK_COMPLETE]")),
			llmtest.Reply(llmtest.Text("Again. [TASK_COMPLETE]")),
		},
		sub: func(_ string, step int) llmtest.Response {
			if step == 0 {
				return llmtest.Reply(llmtest.ToolCall("skill", `{"name": "late"}`))
			}
			return llmtest.Reply(llmtest.Text("nothing to see [TASK_COMPLETE]"))
		},
	}
	var edit sync.Once
	h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
		if !isSubagentRequest(r) && !isClassification(r) {
			// The turn has read its extensions by its first request.
			edit.Do(func() {
				h.write("AGENTS.md", "EDITED RULE\n")
				h.write(".olly/skills/late/SKILL.md", "---\ndescription: a skill written mid-turn\n---\nbody\n")
			})
		}
		return ro.handle(r)
	})
	if res := h.prompt("look around"); res.Status != event.FinishDone {
		t.Fatalf("result %+v", res)
	}
	subs := ro.subRequests()
	if len(subs) == 0 {
		t.Fatal("the sub-agent asked nothing")
	}
	answered := false
	for _, m := range subs[len(subs)-1].Messages {
		answered = answered || strings.Contains(m.Content, `there is no skill "late". Skills: first`)
	}
	if !answered {
		t.Errorf("the skill tool did not answer from the turn's skills: %+v", subs[len(subs)-1].Messages)
	}
	for _, r := range append(subs, h.mainChats()...) {
		sys := systemOf(t, r)
		if !strings.Contains(sys, "FIRST RULE") || strings.Contains(sys, "EDITED RULE") {
			t.Errorf("a request of the turn does not carry the instructions of its start:\n%s", sys)
		}
		if !strings.Contains(sys, "- first: the first skill") || strings.Contains(sys, "- late:") {
			t.Errorf("a request of the turn does not list the skills of its start:\n%s", sys)
		}
	}
	h.prompt("again")
	chats := h.mainChats()
	if sys := systemOf(t, chats[len(chats)-1]); !strings.Contains(sys, "EDITED RULE") || !strings.Contains(sys, "- late: a skill written mid-turn") {
		t.Errorf("the next prompt does not read the edits:\n%s", sys)
	}
}
