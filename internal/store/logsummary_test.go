package store

import (
	"context"
	"errors"
	"testing"
)

func TestLastSeqAndSummarizeLogs(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	newSession(t, s, "b")
	newSession(t, s, "empty")
	for _, typ := range []string{"user_message", "assistant_message", "user_message", "turn_finished"} {
		appendText(t, s, "a", typ, "x")
	}
	appendText(t, s, "b", "user_message", "y")
	// A branch: the leaf moves back, and the log still counts both lines.
	if err := s.SetLeaf(ctx, "a", 1); err != nil {
		t.Fatal(err)
	}
	appendText(t, s, "a", "user_message", "z")

	if seq, err := s.LastSeq(ctx, "a"); err != nil || seq != 5 {
		t.Errorf("LastSeq(a) = %d, %v; want 5 (the log's end, not the leaf)", seq, err)
	}
	if seq, err := s.LastSeq(ctx, "empty"); err != nil || seq != 0 {
		t.Errorf("LastSeq(empty) = %d, %v", seq, err)
	}
	got, err := s.SummarizeLogs(ctx, []string{"a", "b", "empty", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("summaries for %d sessions, want a and b: %+v", len(got), got)
	}
	a := got["a"]
	if a.LastSeq != 5 || a.Counts["user_message"] != 3 || a.Counts["assistant_message"] != 1 || a.Counts["turn_finished"] != 1 {
		t.Errorf("a = %+v", a)
	}
	if b := got["b"]; b.LastSeq != 1 || b.Counts["user_message"] != 1 {
		t.Errorf("b = %+v", b)
	}
	if none, err := s.SummarizeLogs(ctx, nil); err != nil || len(none) != 0 {
		t.Errorf("no ids: %v, %v", none, err)
	}
}

func TestIndexerCatchUp(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	for i := 0; i < 5; i++ {
		appendText(t, s, "a", "user_message", "store the session in sqlite")
	}
	appendText(t, s, "a", "tool_action", "") // not searchable: no vector
	rec := &recordingEmbed{}
	var reports []IndexProgress
	ix, err := s.NewIndexer(IndexerConfig{Embedder: Embedder{Model: "m", Embed: rec.embed}, BatchSize: 2,
		Progress: func(p IndexProgress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	// A failure stops at once with the error, nothing stored.
	rec.setFail(errors.New("model server down"))
	p, err := ix.CatchUp(ctx)
	if err == nil || p.Err == nil || p.Done != 0 || p.Total != 5 {
		t.Fatalf("failing embed: %+v, %v", p, err)
	}
	rec.setFail(nil)
	p, err = ix.CatchUp(ctx)
	if err != nil || p.Done != 5 || p.Total != 5 {
		t.Fatalf("CatchUp = %+v, %v", p, err)
	}
	if len(reports) != 3 || reports[0].Done != 2 || reports[2].Done != 5 {
		t.Errorf("progress reports %+v, want one per batch of 2", reports)
	}
	calls, texts := rec.snapshot()
	if len(texts) != 5 {
		t.Errorf("embedded %d texts, want 5", len(texts))
	}
	// Caught up: another call embeds nothing.
	if p, err := ix.CatchUp(ctx); err != nil || p.Done != 5 {
		t.Errorf("second CatchUp = %+v, %v", p, err)
	}
	if again, _ := rec.snapshot(); again != calls {
		t.Errorf("caught-up CatchUp called Embed %d more times", again-calls)
	}
	// A canceled context stops before embedding.
	appendText(t, s, "a", "user_message", "one more")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.CatchUp(cctx); err == nil {
		t.Error("CatchUp with a canceled context returned no error")
	}
}
