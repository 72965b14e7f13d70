package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/tools"
)

// systemOf returns the system message of a request the fake received.
func systemOf(t *testing.T, r *llmtest.Request) string {
	t.Helper()
	if len(r.Messages) == 0 || r.Messages[0].Role != llm.RoleSystem {
		t.Fatalf("request has no system message: %+v", r.Messages)
	}
	return r.Messages[0].Content
}

// AGENTS.md reaches the system prompt of every mode, on the wire, each
// file under its path and the nearest last; its tokens are a category of
// their own.
func TestInstructionsReachTheSystemPrompt(t *testing.T) {
	user := t.TempDir()
	if err := os.WriteFile(filepath.Join(user, "AGENTS.md"), []byte("USER RULE: answer in English.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, true, harnessOpt{cfg: Config{UserConfigDir: user}})
	h.write("AGENTS.md", "PROJECT RULE: run `make check` before finishing.\n")
	h.write("CLAUDE.md", "CLAUDE RULE: keep functions short.\n")
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]"), llmtest.Usage(3000, 5)),
		llmtest.Reply(llmtest.Text("It is a small project. [TASK_COMPLETE]"), llmtest.Usage(3000, 5)),
	)
	h.prompt("tidy up")
	h.prompt("/explore what is this project?")
	chats := h.chats()
	if len(chats) != 2 {
		t.Fatalf("%d chat requests, want 2", len(chats))
	}
	for i, r := range chats {
		sys := systemOf(t, r)
		for _, want := range []string{"<instructions>", "## ~/", "USER RULE", "## AGENTS.md\nPROJECT RULE", "## CLAUDE.md\nCLAUDE RULE", "</instructions>"} {
			if want == "## ~/" && !strings.HasPrefix(user, os.Getenv("HOME")) {
				continue // the temp dir is not under home: shown absolute
			}
			if !strings.Contains(sys, want) {
				t.Errorf("request %d: system prompt lacks %q:\n%s", i+1, want, sys)
			}
		}
		if strings.Index(sys, "USER RULE") > strings.Index(sys, "PROJECT RULE") {
			t.Errorf("request %d: the user's file comes after the project's", i+1)
		}
	}
	// The project context of read-only modes no longer repeats the files.
	if sys := systemOf(t, chats[1]); strings.Count(sys, "PROJECT RULE") != 1 {
		t.Errorf("explore prompt has AGENTS.md %d times", strings.Count(sys, "PROJECT RULE"))
	}
	for _, u := range payloads[event.TokenUsage](h.live) {
		if u.Categories.Instructions == 0 || sum(u.Categories) != u.PromptTokens {
			t.Errorf("usage %+v: no instructions category, or categories do not add up", u.Categories)
		}
	}
}

// Without instruction files there is no block and no category.
func TestNoInstructions(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]"), llmtest.Usage(3000, 5)))
	h.prompt("tidy up")
	if sys := systemOf(t, h.chats()[0]); strings.Contains(sys, "<instructions>") {
		t.Errorf("block without files:\n%s", sys)
	}
	for _, u := range payloads[event.TokenUsage](h.live) {
		if u.Categories.Instructions != 0 {
			t.Errorf("usage %+v", u.Categories)
		}
	}
}

// A skill's body reaches the model only when it asks: the prompt lists
// the name and description, and the skill tool's result carries the body.
func TestSkillBodyLoadsOnlyWhenAsked(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{tools: []tools.Tool{tools.Skill{}}, cfg: Config{Tools: []string{"write_file"}}})
		h.write(".olly/skills/release/SKILL.md", "---\nname: release\ndescription: Cut a release of the project\n---\nSECRET STEPS: bump the version, tag, push.\n")
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("Hello. [TASK_COMPLETE]")),
			llmtest.Reply(h.call("skill", `{"name": "release"}`)),
			llmtest.Reply(llmtest.Text("Released. [TASK_COMPLETE]")),
		)
		h.prompt("say hello")
		h.prompt("cut a release")
		chats := h.chats()
		if len(chats) != 3 {
			t.Fatalf("%d requests", len(chats))
		}
		for i, r := range chats {
			sys := systemOf(t, r)
			if !strings.Contains(sys, "- release: Cut a release of the project") {
				t.Errorf("request %d: the skill is not listed:\n%s", i+1, sys)
			}
			if strings.Contains(sys, "SECRET STEPS") {
				t.Errorf("request %d: the body is in the system prompt", i+1)
			}
		}
		body := func(r *llmtest.Request) bool {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, "SECRET STEPS") {
					return true
				}
			}
			return false
		}
		if body(chats[0]) || body(chats[1]) {
			t.Error("the body was sent before the model asked for it")
		}
		if !body(chats[2]) {
			t.Error("the skill tool's result did not carry the body")
		}
	})
}
