package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/store"
)

const embedModel = "nomic-embed-text"

// embedServer is the fake model server with an embedding model whose
// vectors are the hash embedder's (texts sharing words are near).
func embedServer(t *testing.T) (*llmtest.Server, *ollama.Client) {
	t.Helper()
	srv := llmtest.New(t)
	srv.AddModel(embedModel, llmtest.Caps("embedding"))
	srv.SetEmbedder(llmtest.HashEmbedder(64))
	c, err := ollama.New(srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func embedCalls(srv *llmtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Path == "/api/embed" {
			n++
		}
	}
	return n
}

// topicSessions stores two sessions about different things.
func topicSessions(t *testing.T, svc *Service, ws string) (db, net string) {
	t.Helper()
	ctx := context.Background()
	mk := func(texts ...string) string {
		sess, err := svc.Create(ctx, CreateOptions{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			if _, err := svc.Emit(ctx, sess.ID, 1, event.UserMessage{Text: text}); err != nil {
				t.Fatal(err)
			}
		}
		return sess.ID
	}
	db = mk("the sqlite schema migration fails on startup", "add an index to the sqlite schema")
	net = mk("fix the http timeout in the network client", "retry the request after a timeout")
	return db, net
}

func TestSearchByMeaning(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, nil)
	srv, client := embedServer(t)
	db, net := topicSessions(t, svc, sess.Workspace)
	// "sqlite schema storage": no session has all three words, so words
	// alone find nothing; by meaning the database session is nearest.
	q := store.SearchQuery{Text: "sqlite schema storage"}
	words, err := Search(ctx, st, SearchOptions{Query: q, Embedder: NewEmbedder(client, embedModel), WordsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !words.WordsOnly || len(words.Sessions) != 0 {
		t.Fatalf("words only: %+v", words)
	}
	if embedCalls(srv) != 0 {
		t.Errorf("--words called the embedding model %d times", embedCalls(srv))
	}
	var reports []store.IndexProgress
	res, err := Search(ctx, st, SearchOptions{Query: q, Embedder: NewEmbedder(client, embedModel), CatchUp: 10 * time.Second,
		Progress: func(p store.IndexProgress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.WordsOnly || res.Notice != "" {
		t.Fatalf("with an embedding model: wordsOnly %v, notice %q", res.WordsOnly, res.Notice)
	}
	if len(res.Sessions) == 0 || res.Sessions[0].Session.ID != db {
		t.Fatalf("first result %+v, want the database session %s (network: %s)", res.Sessions, db, net)
	}
	if len(reports) == 0 || reports[len(reports)-1].Done != 4 || reports[len(reports)-1].Total != 4 {
		t.Errorf("catch-up progress %+v, want it to end at 4/4", reports)
	}
	// Caught up: the next search embeds only the query.
	before := embedCalls(srv)
	if _, err := Search(ctx, st, SearchOptions{Query: q, Embedder: NewEmbedder(client, embedModel), CatchUp: time.Second}); err != nil {
		t.Fatal(err)
	}
	if got := embedCalls(srv) - before; got != 1 {
		t.Errorf("second search made %d embed calls, want 1 (the query)", got)
	}
}

func TestSearchSaysWhenWordsOnly(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, nil)
	srv, client := embedServer(t)
	db, _ := topicSessions(t, svc, sess.Workspace)
	down := llmtest.New(t)
	downClient, err := ollama.New(down.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	down.Close()
	tests := []struct {
		name   string
		emb    *store.Embedder
		notice string
	}{
		{"no embedding model configured", NewEmbedder(client, ""), "no embedding model is configured"},
		{"embedding model not installed", NewEmbedder(client, "not-pulled"), "ollama pull not-pulled"},
		{"server unreachable", NewEmbedder(downClient, embedModel), "searched by words only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Search(ctx, st, SearchOptions{Query: store.SearchQuery{Text: "sqlite schema"}, Embedder: tt.emb, CatchUp: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("notice: %s", res.Notice)
			if !res.WordsOnly || !strings.Contains(res.Notice, tt.notice) {
				t.Errorf("wordsOnly %v, notice %q; want %q", res.WordsOnly, res.Notice, tt.notice)
			}
			if len(res.Sessions) != 1 || res.Sessions[0].Session.ID != db {
				t.Errorf("words still find the session: %+v", res.Sessions)
			}
		})
	}
	if n := embedCalls(srv); n != 1 {
		t.Errorf("%d embed calls, want 1 (the missing model's, which failed)", n)
	}
}

func TestBackgroundIndexing(t *testing.T) {
	ctx := context.Background()
	svc, st, sess := newService(t, nil)
	_, client := embedServer(t)
	if x, err := StartIndexing(ctx, st, nil, nil); x != nil || err != nil {
		t.Fatalf("no embedder: %v, %v", x, err)
	}
	var mu sync.Mutex
	caught := make(chan struct{})
	var once sync.Once
	x, err := StartIndexing(ctx, st, NewEmbedder(client, embedModel), func(p store.IndexProgress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Err == nil && p.Total == 4 && p.Done == 4 {
			once.Do(func() { close(caught) })
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	topicSessions(t, svc, sess.Workspace) // appends wake the indexer
	select {
	case <-caught:
	case <-time.After(10 * time.Second):
		t.Fatal("the indexer did not embed the new messages")
	}
	if err := x.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	// The vectors are there: a search without catch-up uses them.
	res, err := Search(ctx, st, SearchOptions{Query: store.SearchQuery{Text: "sqlite schema storage"}, Embedder: NewEmbedder(client, embedModel)})
	if err != nil || res.WordsOnly || len(res.Sessions) == 0 {
		t.Errorf("search after indexing: %+v, %v", res, err)
	}
	var nilIndexing *Indexing
	if err := nilIndexing.Stop(); err != nil {
		t.Errorf("Stop on nil: %v", err)
	}
}
