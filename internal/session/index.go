package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/store"
)

// EmbedClient computes embeddings: the model server (llm.Provider).
type EmbedClient interface {
	Embed(ctx context.Context, req *llm.EmbedRequest) (*llm.EmbedResponse, error)
}

// NewEmbedder returns the embedder that session search and the background
// indexer use: model on the model server (Ollama /api/embed, or /v1/embeddings).
// It returns nil when model is empty — search is then by words only; olly
// never makes vectors up.
func NewEmbedder(c EmbedClient, model string) *store.Embedder {
	model = strings.TrimSpace(model)
	if c == nil || model == "" {
		return nil
	}
	return &store.Embedder{Model: model, Embed: func(ctx context.Context, texts []string) ([][]float32, error) {
		resp, err := c.Embed(ctx, &llm.EmbedRequest{Model: model, Input: texts})
		if err != nil {
			return nil, err
		}
		if len(resp.Embeddings) != len(texts) {
			return nil, fmt.Errorf("embedding model %s returned %d vectors for %d texts", model, len(resp.Embeddings), len(texts))
		}
		return resp.Embeddings, nil
	}}
}

// Indexable is the store as the indexer and search use it (*store.Store).
type Indexable interface {
	NewIndexer(cfg store.IndexerConfig) (*store.Indexer, error)
	Search(ctx context.Context, q store.SearchQuery) (*store.SearchResult, error)
}

// Indexing is the background indexer of a long-running process (RPC, web,
// the terminal UI): it embeds new messages as they are stored, resumes
// where the last run stopped, and backs off while the model server fails.
type Indexing struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// StartIndexing starts computing vectors for search by meaning with emb in
// the background, until Stop or ctx ends. progress (optional) hears of
// every batch and every failure, from the indexer's goroutine. With no
// embedder (no embedding model configured) there is nothing to run: it
// returns nil, whose Stop does nothing.
func StartIndexing(ctx context.Context, st Indexable, emb *store.Embedder, progress func(store.IndexProgress)) (*Indexing, error) {
	if emb == nil {
		return nil, nil
	}
	ix, err := st.NewIndexer(store.IndexerConfig{Embedder: *emb, Progress: progress})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	x := &Indexing{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(x.done)
		x.err = ix.Run(ctx)
	}()
	return x, nil
}

// Stop ends the indexer and waits for it. The error is the database's,
// when that is what stopped it (closed or damaged).
func (x *Indexing) Stop() error {
	if x == nil {
		return nil
	}
	x.cancel()
	<-x.done
	return x.err
}

// SearchOptions ask for a search of sessions.
type SearchOptions struct {
	// Query is the search; its Embedder is set from the fields below.
	Query store.SearchQuery
	// Embedder is the embedding model (NewEmbedder); nil searches by words
	// only, and the result says so.
	Embedder *store.Embedder
	// WordsOnly searches by words even with an embedder.
	WordsOnly bool
	// CatchUp, when positive, bounds embedding the messages that have no
	// vector yet before searching (a one-shot command has no background
	// indexer). A model server that fails is reported once and the search
	// is by words.
	CatchUp time.Duration
	// Progress hears of each embedded batch of the catch-up.
	Progress func(store.IndexProgress)
}

// Search searches sessions by words and, with an embedder, by meaning. The
// result's WordsOnly and Notice say when and why meaning took no part.
func Search(ctx context.Context, st Indexable, o SearchOptions) (*store.SearchResult, error) {
	q := o.Query
	q.Embedder = nil
	var notice string
	switch {
	case o.WordsOnly:
		notice = "searched by words only, as asked"
	case o.Embedder == nil:
		notice = "searched by words only: no embedding model is configured (set one: olly config set embedding.model nomic-embed-text)"
	case o.CatchUp > 0:
		q.Embedder, notice = catchUp(ctx, st, o)
	default:
		q.Embedder = o.Embedder
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := st.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	switch {
	case q.Embedder == nil:
		res.WordsOnly, res.Notice = true, notice
	case notice != "" && res.Notice != "":
		res.Notice = notice + "; " + res.Notice
	case notice != "":
		res.Notice = notice
	}
	return res, nil
}

// catchUp embeds pending messages within o.CatchUp and returns the
// embedder to search with (nil: words only) and what to tell the person.
func catchUp(ctx context.Context, st Indexable, o SearchOptions) (*store.Embedder, string) {
	emb := o.Embedder
	ix, err := st.NewIndexer(store.IndexerConfig{Embedder: *emb, Progress: o.Progress})
	if err != nil {
		return nil, "searched by words only: " + err.Error()
	}
	cctx, cancel := context.WithTimeout(ctx, o.CatchUp)
	defer cancel()
	p, err := ix.CatchUp(cctx)
	switch {
	case err == nil:
		return emb, ""
	case ctx.Err() != nil:
		return nil, ""
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && p.Done > 0:
		// Slow, not broken: search by meaning over what is embedded.
		return emb, fmt.Sprintf("%d of %d messages are embedded so far, and meaning covers only those (search again to embed more)", p.Done, p.Total)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Sprintf("searched by words only: embedding model %s did not answer within %s", emb.Model, o.CatchUp)
	}
	return nil, "searched by words only: " + err.Error()
}
