package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// recordingEmbed wraps conceptEmbed, recording the texts it was given and
// failing while fail is set.
type recordingEmbed struct {
	mu    sync.Mutex
	texts []string
	calls int
	fail  error
}

func (r *recordingEmbed) embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.calls++
	fail := r.fail
	if fail == nil {
		r.texts = append(r.texts, texts...)
	}
	r.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	return conceptEmbed(ctx, texts)
}

func (r *recordingEmbed) setFail(err error) {
	r.mu.Lock()
	r.fail = err
	r.mu.Unlock()
}

func (r *recordingEmbed) snapshot() (calls int, texts []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, append([]string(nil), r.texts...)
}

// progressLog collects IndexProgress reports.
type progressLog struct {
	mu   sync.Mutex
	list []IndexProgress
	ch   chan IndexProgress
}

func newProgressLog() *progressLog { return &progressLog{ch: make(chan IndexProgress, 1000)} }

func (p *progressLog) add(x IndexProgress) {
	p.mu.Lock()
	p.list = append(p.list, x)
	p.mu.Unlock()
	select {
	case p.ch <- x:
	default:
	}
}

// waitFor returns the first report satisfying ok, failing after 10 s.
func (p *progressLog) waitFor(t *testing.T, ok func(IndexProgress) bool) IndexProgress {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case x := <-p.ch:
			if ok(x) {
				return x
			}
		case <-timeout:
			t.Fatal("no such progress report in 10 s")
		}
	}
}

// runIndexer starts ix.Run and returns a stop function that cancels it and
// waits for it to return.
func runIndexer(t *testing.T, ix *Indexer) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	return func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancel")
			return nil
		}
	}
}

func TestIndexerIndexesAndResumes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, "a")
	for i := range 10 {
		appendText(t, s, "a", "user_message", fmt.Sprintf("message %d about sqlite", i))
		appendText(t, s, "a", "tool_action", "") // not searchable, never embedded
	}
	// First run: stop after the first batch of 4 is stored.
	first := &recordingEmbed{}
	log := newProgressLog()
	ix, err := s.NewIndexer(IndexerConfig{Embedder: Embedder{Model: "m", Embed: first.embed}, BatchSize: 4,
		Progress: log.add, PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// Hold the second batch until stopped, so exactly one batch is stored.
	gate := make(chan struct{})
	ix.cfg.Embedder.Embed = func(ctx context.Context, texts []string) ([][]float32, error) {
		if calls, _ := first.snapshot(); calls >= 1 {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return first.embed(ctx, texts)
	}
	stop := runIndexer(t, ix)
	p := log.waitFor(t, func(p IndexProgress) bool { return p.Done > 0 })
	if p.Done != 4 || p.Total != 10 || p.Err != nil || p.Model != "m" {
		t.Errorf("progress %+v", p)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v after cancel", err)
	}
	close(gate)
	s.Close()

	// After a restart, a new indexer continues after what was stored.
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	second := &recordingEmbed{}
	log = newProgressLog()
	ix, _ = s.NewIndexer(IndexerConfig{Embedder: Embedder{Model: "m", Embed: second.embed}, BatchSize: 4,
		Progress: log.add, PollInterval: time.Hour})
	stop = runIndexer(t, ix)
	log.waitFor(t, func(p IndexProgress) bool { return p.Done == 10 && p.Total == 10 })

	// A new event wakes the idle indexer at once (the poll is an hour).
	appendText(t, s, "a", "assistant_text", "late answer about the schema")
	log.waitFor(t, func(p IndexProgress) bool { return p.Done == 11 && p.Total == 11 })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	_, firstTexts := first.snapshot()
	_, secondTexts := second.snapshot()
	if len(firstTexts) != 4 || len(secondTexts) != 7 {
		t.Fatalf("first run embedded %d texts, second %d; want 4 and 7", len(firstTexts), len(secondTexts))
	}
	seen := map[string]bool{}
	for _, text := range append(firstTexts, secondTexts...) {
		if seen[text] {
			t.Errorf("%q embedded twice", text)
		}
		seen[text] = true
	}
}

func TestIndexerBacksOff(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	appendText(t, s, "a", "user_message", "something to embed")
	emb := &recordingEmbed{fail: errors.New("cannot reach Ollama")}
	log := newProgressLog()
	ix, err := s.NewIndexer(IndexerConfig{Embedder: Embedder{Model: "m", Embed: emb.embed},
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 80 * time.Millisecond, Progress: log.add, PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	stop := runIndexer(t, ix)
	// The waits double up to the maximum, each failure reported.
	var waits []time.Duration
	for len(waits) < 4 {
		p := log.waitFor(t, func(p IndexProgress) bool { return p.Err != nil })
		if p.Done != 0 || p.Total != 1 {
			t.Errorf("progress while failing %+v", p)
		}
		waits = append(waits, p.RetryIn)
	}
	want := []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 80 * time.Millisecond}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("waits %v, want %v", waits, want)
			break
		}
	}
	// It does not spin: over 300 ms of failures it calls at most a handful
	// of times (20+40+80+80+80 ms of waits).
	before, _ := emb.snapshot()
	time.Sleep(300 * time.Millisecond)
	after, _ := emb.snapshot()
	if after-before > 6 {
		t.Errorf("%d embed calls in 300 ms while failing", after-before)
	}
	// Recovery: the next attempt succeeds and clears the error.
	emb.setFail(nil)
	p := log.waitFor(t, func(p IndexProgress) bool { return p.Err == nil })
	if p.Done != 1 {
		t.Errorf("after recovery %+v", p)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestIndexerStopsWhenDatabaseCloses(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := s.NewIndexer(IndexerConfig{Embedder: Embedder{Model: "m", Embed: conceptEmbed}, PollInterval: 10 * time.Millisecond,
		MinBackoff: 10 * time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	time.Sleep(30 * time.Millisecond)
	s.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run returned nil on a closed database")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run kept going on a closed database")
	}
}

func TestNewIndexerNeedsEmbedder(t *testing.T) {
	s := openTest(t)
	if _, err := s.NewIndexer(IndexerConfig{}); err == nil {
		t.Error("indexer without embedder accepted")
	}
}
