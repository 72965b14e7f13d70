package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func seqsOf(evs []EventRecord) []int64 {
	var out []int64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func TestBranchAndPath(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	// 1 user, 2 assistant, 3 user, 4 assistant
	for _, typ := range []string{"user_message", "assistant_text", "user_message", "assistant_text"} {
		appendText(t, s, "a", typ, typ)
	}
	// Edit the second user message: branch from its parent (2).
	if err := s.SetLeaf(ctx, "a", 2); err != nil {
		t.Fatal(err)
	}
	e5 := appendText(t, s, "a", "user_message", "edited question")
	e6 := appendText(t, s, "a", "assistant_text", "another answer")
	if e5.Seq != 5 || e5.ParentSeq != 2 || e6.ParentSeq != 5 {
		t.Fatalf("branch events: %+v %+v", e5, e6)
	}
	// Branch again from the very start.
	if err := s.SetLeaf(ctx, "a", 0); err != nil {
		t.Fatal(err)
	}
	e7 := appendText(t, s, "a", "user_message", "a fresh start")

	cases := []struct {
		name string
		leaf int64
		want []int64
	}{
		{"current leaf", 0, []int64{7}},
		{"new branch", 6, []int64{1, 2, 5, 6}},
		{"old branch kept", 4, []int64{1, 2, 3, 4}},
		{"inner node", 3, []int64{1, 2, 3}},
		{"root", 1, []int64{1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Path(ctx, "a", tc.leaf)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(seqsOf(got), tc.want) {
				t.Errorf("Path(%d) = %v, want %v", tc.leaf, seqsOf(got), tc.want)
			}
		})
	}
	if e7.ParentSeq != 0 {
		t.Errorf("event after SetLeaf(0) has parent %d", e7.ParentSeq)
	}
	// The log keeps everything, in order.
	all, _ := s.Events(ctx, "a", 0, 0)
	if !slices.Equal(seqsOf(all), []int64{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("log = %v", seqsOf(all))
	}
	for _, tc := range []struct {
		name    string
		session string
		seq     int64
	}{{"missing event", "a", 99}, {"missing session", "zz", 1}} {
		if err := s.SetLeaf(ctx, tc.session, tc.seq); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: SetLeaf = %v", tc.name, err)
		}
		if _, err := s.Path(ctx, tc.session, tc.seq); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: Path = %v", tc.name, err)
		}
	}
}

func TestPathOfEmptySession(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	got, err := s.Path(context.Background(), "a", 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("Path = %v, %v", got, err)
	}
}

func TestFork(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	src := newSession(t, s, "src")
	if _, err := s.UpdateSession(ctx, "src", func(x *Session) error {
		x.Model, x.Mode, x.AutoApproveCommands = "qwen3:8b", "agent", true
		x.SensitivePatterns = []byte(`[{"pattern":"**/.env*","action":"ask"}]`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"q1", "a1", "q2", "a2"} {
		appendText(t, s, "src", "user_message", text)
	}
	s.SetLeaf(ctx, "src", 2)
	appendText(t, s, "src", "user_message", "q2 edited") // 5, parent 2

	fork, err := s.Fork(ctx, "src", 4, "")
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == "" || fork.ID == src.ID || fork.ParentSessionID != "src" || fork.ForkedFromSeq != 4 || fork.LeafSeq != 4 {
		t.Fatalf("fork = %+v", fork)
	}
	if fork.Model != "qwen3:8b" || fork.Mode != "agent" || !fork.AutoApproveCommands || string(fork.SensitivePatterns) == "" ||
		fork.Workspace != src.Workspace || fork.Status != StatusIdle {
		t.Errorf("fork settings not copied: %+v", fork)
	}
	evs, _ := s.Events(ctx, fork.ID, 0, 0)
	if !slices.Equal(seqsOf(evs), []int64{1, 2, 3, 4}) || string(evs[3].Payload) != `{"text":"a2"}` {
		t.Fatalf("fork events = %+v", evs)
	}
	// The copies are searchable in the fork.
	if res, _ := s.Search(ctx, SearchQuery{Text: "a2"}); len(res.Sessions) != 2 {
		t.Errorf("search finds %d sessions with a2, want source and fork", len(res.Sessions))
	}
	// Appending to the fork continues its own numbering; the source is untouched.
	e := appendText(t, s, fork.ID, "user_message", "in the fork")
	if e.Seq != 5 || e.ParentSeq != 4 {
		t.Errorf("fork append: seq %d parent %d", e.Seq, e.ParentSeq)
	}
	if n, _ := s.Events(ctx, "src", 0, 0); len(n) != 5 {
		t.Errorf("source has %d events", len(n))
	}

	// Forking at the other branch copies only its path; seqs keep their
	// numbers (gaps where the other branch was).
	f2, err := s.Fork(ctx, "src", 0, "f2")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ = s.Events(ctx, "f2", 0, 0)
	if !slices.Equal(seqsOf(evs), []int64{1, 2, 5}) || f2.LeafSeq != 5 {
		t.Fatalf("fork of current branch = %v leaf %d", seqsOf(evs), f2.LeafSeq)
	}
	path, _ := s.Path(ctx, "f2", 0)
	if !slices.Equal(seqsOf(path), []int64{1, 2, 5}) {
		t.Errorf("fork path = %v", seqsOf(path))
	}
	if e := appendText(t, s, "f2", "x", "next"); e.Seq != 6 || e.ParentSeq != 5 {
		t.Errorf("f2 append: seq %d parent %d", e.Seq, e.ParentSeq)
	}

	// Deleting the source keeps the forks, minus the link.
	if err := s.DeleteSession(ctx, "src"); err != nil {
		t.Fatal(err)
	}
	f2, err = s.Session(ctx, "f2")
	if err != nil || f2.ParentSessionID != "" || f2.ForkedFromSeq != 5 {
		t.Errorf("fork after source deleted: %+v %v", f2, err)
	}
	if _, err := s.Fork(ctx, "src", 0, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork of deleted session: %v", err)
	}
}
