package session

import (
	"context"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
)

// commandRunner runs prompts with simpleTurn and commands as a bash turn,
// recording what it was asked.
type commandRunner struct {
	commands []string
	modes    []event.Mode
}

func (r *commandRunner) RunTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	return simpleTurn(ctx, t)
}

func (r *commandRunner) RunCommand(ctx context.Context, t *Turn, command string) (*TurnResult, error) {
	r.commands, r.modes = append(r.commands, command), append(r.modes, t.Mode)
	for _, p := range []event.Payload{
		event.TurnStarted{Mode: event.ModeBash},
		event.UserMessage{Text: t.Input.Text},
		event.TurnFinished{Status: event.FinishDone},
	} {
		if _, err := t.Emit(ctx, p); err != nil {
			return nil, err
		}
	}
	return &TurnResult{Turn: t.Number, Status: event.FinishDone, Shell: &CommandOutcome{Command: command, Ran: true}}, nil
}

func TestRunCommandIsATurnOfTheSession(t *testing.T) {
	r := &commandRunner{}
	svc, _, sess := newService(t, r)
	ctx := context.Background()
	res, err := svc.RunCommand(ctx, sess.ID, "  go test ./...  ")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != 1 || res.Shell == nil || res.Shell.Command != "go test ./..." {
		t.Fatalf("result = %+v (shell %+v), want turn 1 running the trimmed command", res, res.Shell)
	}
	if len(r.modes) != 1 || r.modes[0] != event.ModeBash {
		t.Errorf("runner saw modes %q, want [bash]", r.modes)
	}
	evs, err := svc.History(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		if ev.Type() != event.TypeTitleChanged { // the service titles a new session from its first prompt
			types = append(types, string(ev.Type()))
		}
	}
	if got := strings.Join(types, " "); got != "turn_started user_message turn_finished" {
		t.Errorf("stored events = %s", got)
	}
	// The next prompt is turn 2: the command counted as a turn.
	next, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "what did it print?"})
	if err != nil {
		t.Fatal(err)
	}
	if next.Turn != 2 {
		t.Errorf("next prompt ran as turn %d, want 2", next.Turn)
	}
}

func TestRunCommandRefusals(t *testing.T) {
	ctx := context.Background()
	svc, _, sess := newService(t, &commandRunner{})
	if _, err := svc.RunCommand(ctx, sess.ID, "   "); err == nil || !strings.Contains(err.Error(), "empty command") {
		t.Errorf("blank command: err = %v, want an empty-command error", err)
	}
	plain, _, sess2 := newService(t, runnerFunc(simpleTurn))
	if _, err := plain.RunCommand(ctx, sess2.ID, "ls"); err == nil || !strings.Contains(err.Error(), "cannot run commands") {
		t.Errorf("runner without commands: err = %v", err)
	}
}
