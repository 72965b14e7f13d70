package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
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

// customService is a service whose session's workspace and user
// directory hold custom commands and a skill.
func customService(t *testing.T, r Runner) (*Service, *store.Session) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	dir, user := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".olly/commands/fix.md"), "---\ndescription: Fix an issue\nmode: plan\nmodel: big:70b\nargument-hint: <issue> [area]\n---\nFix issue #$1 in $2. Everything: $ARGUMENTS.\n")
	writeFile(t, filepath.Join(dir, ".olly/commands/plan.md"), "a custom /plan never replaces the built-in")
	writeFile(t, filepath.Join(dir, ".olly/commands/help.md"), "reserved for the frontends")
	writeFile(t, filepath.Join(dir, ".olly/commands/copy.md"), "the TUI's /copy")
	writeFile(t, filepath.Join(user, "commands/exit.md"), "an alias of the TUI's /quit")
	writeFile(t, filepath.Join(user, "commands/fix.md"), "USER FIX: the project's wins")
	writeFile(t, filepath.Join(user, "commands/standup.md"), "Summarise yesterday's commits.")
	writeFile(t, filepath.Join(user, "commands/badmode.md"), "---\nmode: turbo\n---\nGo.")
	writeFile(t, filepath.Join(dir, ".olly/skills/release/SKILL.md"), "---\nname: release\ndescription: Cut a release\n---\nBODY")
	writeFile(t, filepath.Join(dir, ".olly/skills/broken/SKILL.md"), "---\nname: broken\n---\nno description")
	svc, err := New(Deps{Store: st, Runner: r, UserConfigDir: user})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Create(ctx, CreateOptions{Workspace: dir, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, sess
}

// A custom command expands its arguments into the prompt and runs in its
// mode with its model; the project's wins over the person's.
func TestCustomCommandExpands(t *testing.T) {
	rec := &recorder{}
	svc, sess := customService(t, rec)
	ctx := context.Background()
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: `/fix 42 "the parser"`}); err != nil {
		t.Fatal(err)
	}
	turn := rec.last(t)
	if want := "Fix issue #42 in the parser. Everything: 42 \"the parser\"."; turn.Input.Text != want {
		t.Errorf("prompt %q, want %q", turn.Input.Text, want)
	}
	if turn.Mode != event.ModePlan || turn.Model != "big:70b" {
		t.Errorf("mode %q model %q", turn.Mode, turn.Model)
	}
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "/standup"}); err != nil {
		t.Fatal(err)
	}
	if turn := rec.last(t); turn.Input.Text != "Summarise yesterday's commits." || turn.Mode != event.ModeAgent || turn.Model != "m" {
		t.Errorf("standup: %q %q %q", turn.Input.Text, turn.Mode, turn.Model)
	}
	// The session's own mode and model are unchanged by a command's.
	if s, _ := svc.Open(ctx, sess.ID); s.Mode == string(event.ModePlan) || s.Model != "m" {
		t.Errorf("session changed: mode %q model %q", s.Mode, s.Model)
	}
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "/badmode"}); err == nil || !strings.Contains(err.Error(), `mode "turbo"`) {
		t.Errorf("bad mode: %v", err)
	}
	// A built-in keeps its name.
	if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "/plan add caching"}); err != nil {
		t.Fatal(err)
	}
	if turn := rec.last(t); turn.Input.Text != "add caching" || turn.Mode != event.ModePlan {
		t.Errorf("/plan: %q %q", turn.Input.Text, turn.Mode)
	}
}

// One registry lists built-ins and custom commands for every frontend.
func TestCommandsRegistry(t *testing.T) {
	svc, sess := customService(t, &recorder{})
	cmds, err := svc.Commands(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Command{}
	for _, c := range cmds {
		if _, dup := got[c.Name]; dup {
			t.Errorf("/%s listed twice", c.Name)
		}
		got[c.Name] = c
	}
	if c := got["fix"]; c.Source != "project" || c.About != "Fix an issue" || c.Usage != "/fix <issue> [area]" {
		t.Errorf("fix = %+v", c)
	}
	if c := got["standup"]; c.Source != "user" {
		t.Errorf("standup = %+v", c)
	}
	if c := got["plan"]; c.Source != SourceBuiltin {
		t.Errorf("plan = %+v", c)
	}
	for _, lc := range LocalCommands() {
		for _, name := range append([]string{lc.Name}, lc.Aliases...) {
			if _, ok := got[name]; ok {
				t.Errorf("a custom /%s is offered over the frontends' own", name)
			}
		}
	}
	if _, ok := got["copy"]; ok {
		t.Error("a custom /copy is offered over the TUI's own") // the names had drifted: copy was missing
	}
	if c := got["skills"]; c.Source != SourceBuiltin {
		t.Errorf("skills = %+v", c)
	}
}

// /skills shows the skills as a turn of its own, without the model.
func TestSkillsCommand(t *testing.T) {
	rec := &recorder{}
	svc, sess := customService(t, rec)
	res, err := svc.Prompt(context.Background(), sess.ID, PromptInput{Text: "/skills"})
	if err != nil || res.Command != "skills" {
		t.Fatalf("%+v %v", res, err)
	}
	if len(rec.turns) != 0 {
		t.Error("/skills ran the model")
	}
	evs, err := svc.History(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, ev := range evs {
		if f, ok := ev.Data.(event.FinalMessage); ok {
			text = f.Text
		}
	}
	for _, want := range []string{"**release** (project): Cut a release", "broken", "no description"} {
		if !strings.Contains(text, want) {
			t.Errorf("/skills lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "BODY") {
		t.Error("/skills shows a body")
	}
}
