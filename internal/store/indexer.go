package store

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// IndexerConfig configures an Indexer. Zero durations and sizes take the
// defaults in brackets.
type IndexerConfig struct {
	Embedder Embedder
	// BatchSize is how many texts go to one Embed call [32].
	BatchSize int
	// MaxTextBytes cuts longer texts before embedding [8000]: embedding
	// models have small context windows.
	MaxTextBytes int
	// MinBackoff and MaxBackoff bound the wait after a failure, which
	// doubles from one to the other [1 s, 5 min].
	MinBackoff, MaxBackoff time.Duration
	// PollInterval is how often an idle indexer looks for events other
	// processes appended [10 s]; this process's appends wake it at once.
	PollInterval time.Duration
	// Progress, if set, is called from Run's goroutine after every batch
	// and every failure.
	Progress func(IndexProgress)
}

// IndexProgress reports an Indexer's state.
type IndexProgress struct {
	Model string
	// Done events have vectors for Model, out of Total searchable events.
	Done, Total int
	// Err is the failure that stopped the last batch (nil after a
	// success); RetryIn is when the indexer tries again.
	Err     error
	RetryIn time.Duration
}

// Indexer computes embedding vectors for searchable events in the
// background. Where it got to is kept in the database, so a restarted
// Indexer resumes there.
type Indexer struct {
	s   *Store
	cfg IndexerConfig
}

// NewIndexer returns an Indexer for cfg.Embedder; Run starts it.
func (s *Store) NewIndexer(cfg IndexerConfig) (*Indexer, error) {
	if cfg.Embedder.Model == "" || cfg.Embedder.Embed == nil {
		return nil, errors.New("indexer: an embedding model name and function are required")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	if cfg.MaxTextBytes <= 0 {
		cfg.MaxTextBytes = 8000
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = time.Second
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(5*time.Minute, cfg.MinBackoff)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 10 * time.Second
	}
	return &Indexer{s: s, cfg: cfg}, nil
}

// Run indexes until ctx ends, then returns nil. A failing Embed (model
// server down, model missing) is reported through Progress and retried
// after a growing pause; Run returns an error only when the database
// itself is unusable (damaged or closed).
func (ix *Indexer) Run(ctx context.Context) error {
	wake, stop := ix.s.watchAppends()
	defer stop()
	backoff := time.Duration(0)
	for {
		n, err := ix.step(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var damaged *DamagedError
		if errors.As(err, &damaged) || errors.Is(err, ErrClosed) {
			return err
		}
		if err != nil {
			backoff = min(max(2*backoff, ix.cfg.MinBackoff), ix.cfg.MaxBackoff)
			ix.report(ctx, err, backoff)
			if !sleep(ctx, backoff) {
				return nil
			}
			continue
		}
		backoff = 0
		if n > 0 {
			ix.report(ctx, nil, 0)
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-time.After(ix.cfg.PollInterval):
		}
	}
}

// sleep waits d or until ctx ends, reporting whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// step embeds the next batch of events after the model's cursor and
// returns how many it stored (0: caught up).
func (ix *Indexer) step(ctx context.Context) (int, error) {
	s, model := ix.s, ix.cfg.Embedder.Model
	if s.closed() {
		return 0, fmt.Errorf("indexer %s: %w", model, ErrClosed)
	}
	m, err := getEmbeddingModel(ctx, s.r, model)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return 0, classify(s.file, fmt.Errorf("indexer %s: %w", model, err))
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, text FROM events
		WHERE id > ? AND text IS NOT NULL ORDER BY id LIMIT ?`, m.cursor, ix.cfg.BatchSize)
	if err != nil {
		return 0, classify(s.file, fmt.Errorf("indexer %s: %w", model, err))
	}
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			rows.Close()
			return 0, classify(s.file, fmt.Errorf("indexer %s: %w", model, err))
		}
		ids, texts = append(ids, id), append(texts, truncateUTF8(text, ix.cfg.MaxTextBytes))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, classify(s.file, fmt.Errorf("indexer %s: %w", model, err))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	vecs, err := ix.cfg.Embedder.Embed(ctx, texts)
	if err != nil {
		return 0, fmt.Errorf("embedding model %s: %w", model, err)
	}
	if len(vecs) != len(texts) {
		return 0, fmt.Errorf("embedding model %s returned %d vectors for %d texts", model, len(vecs), len(texts))
	}
	items := make([]vectorItem, len(ids))
	for i := range ids {
		items[i] = vectorItem{eventID: ids[i], vec: vecs[i]}
	}
	if err := s.storeVectors(ctx, model, items, ids[len(ids)-1]); err != nil {
		return 0, classify(s.file, fmt.Errorf("indexer %s: store vectors: %w", model, err))
	}
	return len(ids), nil
}

func (ix *Indexer) report(ctx context.Context, err error, retry time.Duration) {
	if ix.cfg.Progress == nil {
		return
	}
	p := IndexProgress{Model: ix.cfg.Embedder.Model, Err: err, RetryIn: retry}
	p.Done, p.Total, _ = ix.s.indexCounts(ctx, p.Model)
	ix.cfg.Progress(p)
}

// indexCounts returns how many events have vectors for model, and how
// many are searchable.
func (s *Store) indexCounts(ctx context.Context, model string) (done, total int, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM embeddings WHERE model_id = (SELECT id FROM embedding_models WHERE name = ?)),
		(SELECT count(*) FROM events WHERE text IS NOT NULL)`, model).Scan(&done, &total)
	return done, total, classify(s.file, err)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
