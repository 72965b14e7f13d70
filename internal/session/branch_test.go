package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// answerTurn emits a turn as the agent does: turn_started before the user
// message, an answer, turn_finished.
func answerTurn(ctx context.Context, t *Turn) (*TurnResult, error) {
	for _, p := range []event.Payload{
		event.TurnStarted{Mode: t.Mode, Model: t.Model},
		event.UserMessage{Text: t.Input.Text},
		event.AssistantMessage{Iteration: 1, Text: "answer to " + t.Input.Text, Content: "answer to " + t.Input.Text},
		event.FinalMessage{Text: "done: " + t.Input.Text},
		event.TurnFinished{Status: event.FinishDone, Iterations: 1},
	} {
		if _, err := t.Emit(ctx, p); err != nil {
			return nil, err
		}
	}
	return &TurnResult{Turn: t.Number, Status: event.FinishDone, Iterations: 1}, nil
}

func prompt(t *testing.T, svc *Service, id, text string) {
	t.Helper()
	if _, err := svc.Prompt(context.Background(), id, PromptInput{Text: text}); err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
}

// userSeqs returns the seqs and texts of the user messages in evs.
func userTexts(evs []event.Event) []string {
	var out []string
	for _, ev := range evs {
		if um, ok := ev.Data.(event.UserMessage); ok {
			out = append(out, um.Text)
		}
	}
	return out
}

func userSeq(t *testing.T, svc *Service, id, text string) int64 {
	t.Helper()
	evs, err := svc.Log(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if um, ok := ev.Data.(event.UserMessage); ok && um.Text == text {
			return ev.Seq
		}
	}
	t.Fatalf("no prompt %q", text)
	return 0
}

func TestBranchContinuesBeforeThePrompt(t *testing.T) {
	ctx := context.Background()
	svc, _, sess := newService(t, runnerFunc(answerTurn))
	prompt(t, svc, sess.ID, "one")
	prompt(t, svc, sess.ID, "two")
	prompt(t, svc, sess.ID, "three")
	two := userSeq(t, svc, sess.ID, "two")

	bp, err := svc.Branch(ctx, sess.ID, two)
	if err != nil {
		t.Fatal(err)
	}
	if bp.Prompt != "two" || bp.Turn != 2 || bp.Seq != two {
		t.Errorf("branch point %+v", bp)
	}
	// The leaf is the end of turn 1 (its turn_finished), not turn 2's
	// turn_started: the new turn must not inherit the old one's start.
	evs, _ := svc.History(ctx, sess.ID)
	if last := evs[len(evs)-1]; last.Type() != event.TypeTurnFinished || last.Turn != 1 || last.Seq != bp.Leaf {
		t.Fatalf("branch ends at %s of turn %d (seq %d), leaf %d", last.Type(), last.Turn, last.Seq, bp.Leaf)
	}
	prompt(t, svc, sess.ID, "two, differently")
	evs, _ = svc.History(ctx, sess.ID)
	if diff := cmp.Diff([]string{"one", "two, differently"}, userTexts(evs)); diff != "" {
		t.Errorf("current branch prompts (-want +got):\n%s", diff)
	}
	var turns []int
	for _, ev := range evs {
		if _, ok := ev.Data.(event.TurnStarted); ok {
			turns = append(turns, ev.Turn)
		}
	}
	if diff := cmp.Diff([]int{1, 2}, turns); diff != "" {
		t.Errorf("turn numbers on the new branch (-want +got):\n%s", diff)
	}
	// The model sees the new branch only.
	conv, _ := svc.Conversation(ctx, sess.ID)
	for _, m := range conv.Messages(FormatNative) {
		if strings.Contains(m.Content, "three") || m.Content == "two" {
			t.Errorf("the old branch leaked into the conversation: %q", m.Content)
		}
	}
	// Both lines are in the log, and the tree shows them.
	all, _ := svc.Log(ctx, sess.ID)
	if diff := cmp.Diff([]string{"one", "two", "three", "two, differently"}, userTexts(all)); diff != "" {
		t.Errorf("log prompts (-want +got):\n%s", diff)
	}
	tree, err := svc.Tree(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Roots) != 1 || tree.Roots[0].Text != "one" || len(tree.Roots[0].Children) != 2 {
		t.Fatalf("tree: %+v", tree.Roots)
	}
	old, fresh := tree.Roots[0].Children[0], tree.Roots[0].Children[1]
	if old.Text != "two" || len(old.Children) != 1 || old.Children[0].Text != "three" || old.OnPath {
		t.Errorf("old branch %+v", old)
	}
	if fresh.Text != "two, differently" || !fresh.OnPath || !tree.Roots[0].OnPath || tree.Current != fresh.Seq {
		t.Errorf("new branch %+v, current %d", fresh, tree.Current)
	}
}

func TestBranchAtFirstPromptAndRefusals(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, runnerFunc(answerTurn))
	prompt(t, svc, sess.ID, "one")
	one := userSeq(t, svc, sess.ID, "one")
	tests := []struct {
		name string
		seq  int64
		want string
	}{
		{"not a prompt", one + 1, "not a prompt"},
		{"no such event", 999, "has no event 999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := svc.Branch(ctx, sess.ID, tt.seq); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Branch(%d) = %v, want %q", tt.seq, err, tt.want)
			}
		})
	}
	// Branching at the first prompt: the next prompt is a new root.
	bp, err := svc.Branch(ctx, sess.ID, one)
	if err != nil || bp.Leaf != 0 {
		t.Fatalf("branch at the first prompt: %+v, %v", bp, err)
	}
	prompt(t, svc, sess.ID, "fresh start")
	tree, _ := svc.Tree(ctx, sess.ID)
	if len(tree.Roots) != 2 || !tree.Roots[1].OnPath || tree.Roots[0].OnPath {
		t.Errorf("two roots, the second current: %+v", tree.Roots)
	}
	// A session generating in a live process (this one) is not branched.
	if err := st.SetStatus(ctx, sess.ID, store.StatusGenerating); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Branch(ctx, sess.ID, one); !errors.Is(err, ErrBusy) {
		t.Errorf("branch while generating: %v", err)
	}
}

func TestForkCopiesUpToThePrompt(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, runnerFunc(answerTurn))
	prompt(t, svc, sess.ID, "one")
	prompt(t, svc, sess.ID, "two")
	two := userSeq(t, svc, sess.ID, "two")

	whole, bp, err := svc.Fork(ctx, sess.ID, 0)
	if err != nil || bp != nil {
		t.Fatalf("fork: %v, %+v", err, bp)
	}
	if whole.ParentSessionID != sess.ID || whole.Title != "one" {
		t.Errorf("fork %+v", whole)
	}
	evs, _ := svc.History(ctx, whole.ID)
	if diff := cmp.Diff([]string{"one", "two"}, userTexts(evs)); diff != "" {
		t.Errorf("whole fork (-want +got):\n%s", diff)
	}

	part, bp, err := svc.Fork(ctx, sess.ID, two)
	if err != nil || bp == nil || bp.Prompt != "two" {
		t.Fatalf("fork at %d: %+v, %v", two, bp, err)
	}
	if part.ForkedFromSeq != bp.Leaf {
		t.Errorf("fork origin seq %d, want %d", part.ForkedFromSeq, bp.Leaf)
	}
	prompt(t, svc, part.ID, "two, in the fork")
	evs, _ = svc.History(ctx, part.ID)
	if diff := cmp.Diff([]string{"one", "two, in the fork"}, userTexts(evs)); diff != "" {
		t.Errorf("partial fork (-want +got):\n%s", diff)
	}
	// The original is untouched.
	orig, _ := svc.History(ctx, sess.ID)
	if diff := cmp.Diff([]string{"one", "two"}, userTexts(orig)); diff != "" {
		t.Errorf("original after forking (-want +got):\n%s", diff)
	}

	one := userSeq(t, svc, sess.ID, "one")
	empty, bp, err := svc.Fork(ctx, sess.ID, one)
	if err != nil {
		t.Fatalf("fork before the first prompt: %v", err)
	}
	if empty.ParentSessionID != sess.ID || empty.ForkedFromSeq != 0 || empty.LeafSeq != 0 || empty.Title != "" {
		t.Errorf("fork before the first prompt: parent %q from %d, leaf %d, title %q; want parent %s, nothing copied, untitled",
			empty.ParentSessionID, empty.ForkedFromSeq, empty.LeafSeq, empty.Title, sess.ID)
	}
	if bp == nil || bp.Seq != one || bp.Prompt != "one" || bp.Leaf != 0 {
		t.Errorf("fork before the first prompt: branch point %+v", bp)
	}
	if evs, err := svc.History(ctx, empty.ID); err != nil || len(evs) != 0 {
		t.Errorf("fork before the first prompt holds %d events (%v), want none", len(evs), err)
	}
	if err := st.SetStatus(ctx, sess.ID, store.StatusGenerating); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Fork(ctx, sess.ID, 0); !errors.Is(err, ErrBusy) {
		t.Errorf("forking the tip of a generating session: %v", err)
	}
	if _, _, err := svc.Fork(ctx, sess.ID, two); err != nil {
		t.Errorf("forking a generating session at an earlier prompt: %v", err)
	}
}

func TestRenameRecordsTitleEvent(t *testing.T) {
	ctx := context.Background()
	svc, _, sess := newService(t, runnerFunc(answerTurn))
	prompt(t, svc, sess.ID, "one")
	got, err := svc.Rename(ctx, sess.ID, "  The   new\ntitle ")
	if err != nil || got.Title != "The new title" {
		t.Fatalf("rename: %+v, %v", got, err)
	}
	evs, _ := svc.History(ctx, sess.ID)
	last := evs[len(evs)-1]
	if tc, ok := last.Data.(event.TitleChanged); !ok || tc.Title != "The new title" || last.Turn != 0 {
		t.Errorf("last event %s %+v (turn %d)", last.Type(), last.Data, last.Turn)
	}
	// The next turn follows the rename and keeps its number sequence.
	prompt(t, svc, sess.ID, "two")
	evs, _ = svc.History(ctx, sess.ID)
	if evs[len(evs)-1].Turn != 2 {
		t.Errorf("turn after rename = %d", evs[len(evs)-1].Turn)
	}
	for _, bad := range []string{"", "  ", strings.Repeat("x", 201)} {
		if _, err := svc.Rename(ctx, sess.ID, bad); err == nil {
			t.Errorf("rename to %d characters accepted", len(bad))
		}
	}
	if _, err := svc.Rename(ctx, "missing", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rename missing: %v", err)
	}
}

func TestDeleteRefusesGenerating(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, runnerFunc(answerTurn))
	prompt(t, svc, sess.ID, "one")
	if err := st.SetStatus(ctx, sess.ID, store.StatusGenerating); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, sess.ID); !errors.Is(err, ErrBusy) {
		t.Fatalf("delete while generating: %v", err)
	}
	if _, err := svc.Open(ctx, sess.ID); err != nil {
		t.Fatalf("the session is gone after a refused delete: %v", err)
	}
	if err := st.SetStatus(ctx, sess.ID, store.StatusIdle); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Open(ctx, sess.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	if err := svc.Delete(ctx, sess.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
}

func TestFindAndResume(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, runnerFunc(answerTurn))
	other, err := svc.Create(ctx, CreateOptions{Workspace: sess.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	// Ids made in the same millisecond share their first 10 characters.
	twin := &store.Session{ID: sess.ID[:12] + "ZZZZZZZZZZZZZZ", Workspace: sess.Workspace}
	if err := st.CreateSession(ctx, twin); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ref string
		want      string
		err       error
		errText   string
	}{
		{"exact", sess.ID, sess.ID, nil, ""},
		{"unique prefix, lower case", strings.ToLower(other.ID[:20]), other.ID, nil, ""},
		{"ambiguous", sess.ID[:12], "", ErrAmbiguous, "matches"},
		{"too short", sess.ID[:3], "", nil, "too short"},
		{"none", "7ZZZZZZZ", "", store.ErrNotFound, "no session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.Find(ctx, tt.ref)
			if tt.want != "" {
				if err != nil || got.ID != tt.want {
					t.Fatalf("Find(%q) = %v, %v", tt.ref, got, err)
				}
				return
			}
			if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) || !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("Find(%q) error = %v", tt.ref, err)
			}
		})
	}
	// The latest of the workspace is the one most recently updated.
	prompt(t, svc, sess.ID, "make it the latest")
	got, err := svc.Resume(ctx, ResumeTarget{Workspace: sess.Workspace, Latest: true})
	if err != nil || got.ID != sess.ID {
		t.Errorf("latest = %v, %v", got, err)
	}
	if _, err := svc.Resume(ctx, ResumeTarget{Workspace: t.TempDir(), Latest: true}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("latest of an empty workspace: %v", err)
	}
	recent, err := svc.Recent(ctx, sess.Workspace, 2)
	if err != nil || len(recent) != 2 || recent[0].ID != sess.ID {
		t.Errorf("recent = %v, %v", recent, err)
	}
}

func TestPromptHistoryRecorded(t *testing.T) {
	ctx := context.Background()
	svc, _, sess := newService(t, runnerFunc(answerTurn))
	for _, p := range []string{"fix the parser", "fix the parser", "add a test for Parse", "/plan rename Config"} {
		_, _ = svc.Prompt(ctx, sess.ID, PromptInput{Text: p})
	}
	got, err := svc.Prompts(ctx, sess.Workspace, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range got {
		texts = append(texts, p.Text)
		if p.Workspace != sess.Workspace {
			t.Errorf("prompt %q recorded for workspace %q", p.Text, p.Workspace)
		}
	}
	// Newest first; the repeated prompt kept once; commands kept too.
	want := []string{"/plan rename Config", "add a test for Parse", "fix the parser"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	found, err := svc.Prompts(ctx, "", "pars", 0)
	if err != nil || len(found) != 2 {
		t.Errorf("search 'pars' = %+v, %v", found, err)
	}
	if none, err := svc.Prompts(ctx, t.TempDir(), "", 0); err != nil || len(none) != 0 {
		t.Errorf("another workspace's history = %+v, %v", none, err)
	}
}
