package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

// gatedRunner runs turns that wait at an "iteration boundary" until the
// test opens the gate, then take steering like the agent does.
type gatedRunner struct {
	mu      sync.Mutex
	started chan int // turn numbers, as turns start
	gate    chan struct{}
	passed  chan struct{} // a turn took its steering
	prompts []string      // each turn's input, in order
	steered [][]string
}

func newGatedRunner() *gatedRunner {
	return &gatedRunner{started: make(chan int, 16), gate: make(chan struct{}, 16), passed: make(chan struct{}, 16)}
}

func (g *gatedRunner) RunTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	g.mu.Lock()
	g.prompts = append(g.prompts, t.Input.Text)
	g.mu.Unlock()
	if _, err := t.Emit(ctx, event.TurnStarted{Mode: "agent"}); err != nil {
		return nil, err
	}
	if _, err := t.Emit(ctx, event.UserMessage{Text: t.Input.Text}); err != nil {
		return nil, err
	}
	g.started <- t.Number
	status := event.FinishDone
	select {
	case <-g.gate:
	case <-ctx.Done():
		status = event.FinishCanceled
	}
	var texts []string
	if status == event.FinishDone {
		got, err := t.TakeSteering(ctx)
		if err != nil {
			return nil, err
		}
		for _, um := range got {
			texts = append(texts, um.Text)
		}
		g.passed <- struct{}{}
	}
	g.mu.Lock()
	g.steered = append(g.steered, texts)
	g.mu.Unlock()
	if _, err := t.Emit(context.WithoutCancel(ctx), event.TurnFinished{Status: status}); err != nil {
		return nil, err
	}
	return &TurnResult{Turn: t.Number, Status: status}, nil
}

func (g *gatedRunner) snapshot() ([]string, [][]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.prompts...), append([][]string(nil), g.steered...)
}

func waitStarted(t *testing.T, g *gatedRunner) int {
	t.Helper()
	select {
	case n := <-g.started:
		return n
	case <-time.After(5 * time.Second):
		t.Fatal("no turn started")
		return 0
	}
}

func TestSubmitQueuesWhileRunning(t *testing.T) {
	g := newGatedRunner()
	svc, _, sess := newService(t, g)
	ctx := context.Background()

	first, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "first"}, WhenBusyRefuse)
	if err != nil || first.Queued != "" {
		t.Fatalf("first submission: %+v, %v", first, err)
	}
	// Admitted but not yet running: later prompts queue, never race it.
	steer, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "use tabs"}, WhenBusySteer)
	if err != nil || steer.Queued != WhenBusySteer {
		t.Fatalf("steer: %+v, %v", steer, err)
	}
	follow, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "then add tests"}, WhenBusyFollowUp)
	if err != nil || follow.Queued != WhenBusyFollowUp {
		t.Fatalf("follow-up: %+v, %v", follow, err)
	}
	if _, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "third"}, WhenBusyRefuse); !errors.Is(err, ErrBusy) {
		t.Fatalf("a plain prompt while busy: err = %v, want ErrBusy", err)
	}
	if got := svc.Queued(sess.ID); got != (QueueCounts{Steer: 1, FollowUp: 1}) {
		t.Fatalf("Queued = %+v", got)
	}
	if res, err := steer.Run(ctx); res != nil || err != nil {
		t.Fatalf("running a queued submission did something: %v, %v", res, err)
	}

	done := make(chan *TurnResult, 1)
	go func() {
		res, err := first.Run(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if n := waitStarted(t, g); n != 1 {
		t.Fatalf("first turn number %d", n)
	}
	g.gate <- struct{}{} // turn 1 takes the steering message at its boundary
	if n := waitStarted(t, g); n != 2 {
		t.Fatalf("follow-up turn number %d", n)
	}
	g.gate <- struct{}{}
	res := <-done
	if res == nil || res.Turn != 1 || res.Status != event.FinishDone {
		t.Fatalf("Run returned %+v, want the first turn's result", res)
	}
	prompts, steered := g.snapshot()
	if strings.Join(prompts, "|") != "first|then add tests" {
		t.Errorf("turns ran %q", prompts)
	}
	if len(steered) != 2 || strings.Join(steered[0], "|") != "use tabs" || len(steered[1]) != 0 {
		t.Errorf("steering taken per turn = %q", steered)
	}
	checkSteeringPlacement(t, svc, sess.ID)
	if svc.Queued(sess.ID).Total() != 0 || svc.Busy(sess.ID) {
		t.Error("the session is still held after Run")
	}
	// Idle again: a plain prompt is admitted.
	sub, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "again"}, WhenBusyRefuse)
	if err != nil || sub.Queued != "" {
		t.Fatalf("after Run: %+v, %v", sub, err)
	}
	sub.Release()
}

// checkSteeringPlacement checks where the steering message "use tabs" sent
// into turn 1 of session id ended up: in turn 1's conversation, not a
// prompt of its own (tree, branch), and inside turn 1 on the timeline.
func checkSteeringPlacement(t *testing.T, svc *Service, id string) {
	t.Helper()
	ctx := context.Background()
	// The steering message is in turn 1's conversation, as a user message.
	evs, err := svc.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var steerSeq int64
	for _, ev := range evs {
		if um, ok := ev.Data.(event.UserMessage); ok && um.Text == "use tabs" && ev.Turn == 1 && um.Steering {
			steerSeq = ev.Seq
		}
	}
	if steerSeq == 0 {
		t.Fatal("the steering message is not a user_message of turn 1 marked steering")
	}
	// It is part of turn 1, not a prompt: the tree lists the two prompts
	// only, the second under the first, and no branch starts at it.
	tree, err := svc.Tree(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Roots) != 1 || tree.Roots[0].Text != "first" || len(tree.Roots[0].Children) != 1 || tree.Roots[0].Children[0].Text != "then add tests" {
		t.Errorf("tree roots %+v", tree.Roots)
	}
	if _, err := svc.Branch(ctx, id, steerSeq); err == nil || !strings.Contains(err.Error(), "not a prompt") {
		t.Errorf("branch at the steering message: %v", err)
	}
	// The timeline shows it inside turn 1 (timeline's tests check where).
	tl := timeline.Build(evs)
	var users []string
	var turn1 *timeline.Item
	for _, it := range tl.Items {
		if it.Kind == timeline.KindUser {
			users = append(users, it.Text)
		} else if it.Turn == 1 {
			turn1 = it
		}
	}
	if strings.Join(users, "|") != "first|then add tests" || turn1 == nil {
		t.Fatalf("timeline user items %q", users)
	}
	steered1 := false
	for _, b := range turn1.Blocks {
		steered1 = steered1 || (b.Kind == timeline.BlockNotice && b.Level == timeline.LevelSteering && b.Text == "use tabs")
	}
	if !steered1 {
		t.Errorf("turn 1's blocks lack the steering message: %+v", turn1.Blocks)
	}
}

func TestLeftoverSteeringRunsAsNextTurn(t *testing.T) {
	g := newGatedRunner()
	svc, _, sess := newService(t, g)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "first"}); err != nil {
			t.Error(err)
		}
	}()
	waitStarted(t, g)
	// Past the turn's last boundary: it will not take this message, but
	// the turn is still running, so it is queued.
	g.mu.Lock()
	g.gate <- struct{}{}
	<-g.passed
	for _, text := range []string{"late words", "more late words"} {
		if _, err := svc.Submit(ctx, sess.ID, PromptInput{Text: text}, WhenBusySteer); err != nil {
			t.Error(err)
		}
	}
	g.mu.Unlock()
	waitStarted(t, g)
	g.gate <- struct{}{}
	<-done
	// The first leftover runs as the next turn, which takes the second as
	// its steering.
	prompts, steered := g.snapshot()
	if strings.Join(prompts, "|") != "first|late words" || len(steered) != 2 || strings.Join(steered[1], "|") != "more late words" {
		t.Fatalf("turns ran %q, steered %q; the leftover steering should run as the next turn", prompts, steered)
	}
	// Each is in the prompt history once: recorded when sent, not again
	// when it ran.
	hist, err := svc.Prompts(ctx, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range hist {
		texts = append(texts, p.Text)
	}
	if len(texts) != 3 {
		t.Errorf("prompt history %q, want each prompt once", texts)
	}
}

func TestCanceledTurnDropsQueue(t *testing.T) {
	g := newGatedRunner()
	svc, _, sess := newService(t, g)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := svc.Prompt(ctx, sess.ID, PromptInput{Text: "first"})
		if err != nil || res.Status != event.FinishCanceled {
			t.Errorf("Prompt = %+v, %v", res, err)
		}
	}()
	waitStarted(t, g)
	if _, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "after"}, WhenBusyFollowUp); err != nil {
		t.Fatal(err)
	}
	svc.Abort(sess.ID)
	<-done
	if prompts, _ := g.snapshot(); len(prompts) != 1 {
		t.Fatalf("turns ran %q after an abort", prompts)
	}
	if svc.Queued(sess.ID).Total() != 0 {
		t.Error("queue kept after the abort")
	}
}

func TestSubmitRefusals(t *testing.T) {
	g := newGatedRunner()
	svc, _, sess := newService(t, g)
	ctx := context.Background()
	tests := []struct {
		name, text string
		whenBusy   WhenBusy
		want       string
	}{
		{"empty", "  ", WhenBusyRefuse, "empty prompt"},
		{"unknown command", "/teleport now", WhenBusyFollowUp, "unknown command /teleport"},
		{"unknown behaviour", "hi", "later", `unknown busy behaviour "later"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Submit(ctx, sess.ID, PromptInput{Text: tt.text}, tt.whenBusy)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	sub, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "run"}, WhenBusyRefuse)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Release()
	if _, err := svc.Submit(ctx, sess.ID, PromptInput{Text: "/compact"}, WhenBusySteer); err == nil || !strings.Contains(err.Error(), "cannot steer") {
		t.Fatalf("a command as steering: err = %v", err)
	}
	if svc.Queued(sess.ID).Total() != 0 {
		t.Error("a refused prompt was queued")
	}
	if got := svc.ClearQueue(sess.ID); len(got) != 0 {
		t.Errorf("ClearQueue = %v", got)
	}
}
