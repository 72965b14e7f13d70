package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// conceptEmbed is a stand-in for an embedding model (the one thing that
// cannot run here): each text maps to a vector over a few concepts, so
// texts about the same thing are near even when they share no word.
func conceptEmbed(_ context.Context, texts []string) ([][]float32, error) {
	concepts := [][]string{
		{"database", "sqlite", "storage", "persist", "table", "schema"},
		{"network", "http", "socket", "request", "timeout"},
		{"test", "fuzz", "assert", "benchmark"},
		{"ui", "render", "terminal", "screen", "color"},
	}
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, 8) // dims 4..7 stay a small constant: no zero vectors
		for d := 4; d < 8; d++ {
			v[d] = 0.05
		}
		lower := strings.ToLower(text)
		for c, words := range concepts {
			for _, w := range words {
				if strings.Contains(lower, w) {
					v[c]++
				}
			}
		}
		out[i] = v
	}
	return out, nil
}

func TestSearchWordsOnly(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, x := range []struct{ id, ws, title string }{
		{"s1", "/a", "Parser work"}, {"s2", "/a", "Lexer cleanup"}, {"s3", "/b", "Release notes"},
	} {
		if err := s.CreateSession(ctx, &Session{ID: x.id, Workspace: x.ws, Title: x.title}); err != nil {
			t.Fatal(err)
		}
	}
	appendText(t, s, "s1", "user_message", "Why does the parser reject trailing commas in function calls?")
	appendText(t, s, "s1", "assistant_text", "The parser stops at the comma because the grammar has no rule for it.")
	appendText(t, s, "s1", "tool_action", "") // not searchable
	appendText(t, s, "s2", "user_message", "rename tokens in the lexer; the parser uses them too")
	appendText(t, s, "s3", "user_message", "write release notes about the parsing speedup")

	res, err := s.Search(ctx, SearchQuery{Text: "parser"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.WordsOnly || !strings.Contains(res.Notice, "no embedding model") {
		t.Errorf("flag %v notice %q", res.WordsOnly, res.Notice)
	}
	var ids []string
	for _, m := range res.Sessions {
		ids = append(ids, m.Session.ID)
	}
	// s1 matches in its title and two events, s2 in one event.
	if !slices.Equal(ids, []string{"s1", "s2"}) {
		t.Fatalf("sessions %v", ids)
	}
	s1 := res.Sessions[0]
	if s1.TitleSnippet != "«Parser» work" || len(s1.Hits) != 2 || s1.Session.Title != "Parser work" {
		t.Errorf("s1 match %+v", s1)
	}
	for _, h := range s1.Hits {
		if !strings.Contains(h.Snippet, "«parser»") || h.WordRank == 0 || h.MeaningRank != 0 {
			t.Errorf("hit %+v", h)
		}
	}
	res, _ = s.Search(ctx, SearchQuery{Text: "parsed"}) // the porter stemmer finds "parsing"
	if len(res.Sessions) != 1 || !strings.Contains(res.Sessions[0].Hits[0].Snippet, "«parsing»") {
		t.Errorf("stemmed search: %+v", res.Sessions)
	}

	cases := []struct {
		name string
		q    SearchQuery
		want []string
	}{
		{"workspace", SearchQuery{Text: "notes", Workspace: "/b"}, []string{"s3"}},
		{"other workspace", SearchQuery{Text: "notes", Workspace: "/a"}, nil},
		{"all words", SearchQuery{Text: "parser comma"}, []string{"s1"}},
		{"phrase", SearchQuery{Text: `"rename tokens"`}, []string{"s2"}},
		{"prefix", SearchQuery{Text: "lex*"}, []string{"s2"}},
		{"title only", SearchQuery{Text: "cleanup"}, []string{"s2"}},
		{"limit", SearchQuery{Text: "parser", Limit: 1}, []string{"s1"}},
		{"no match", SearchQuery{Text: "zebra"}, nil},
		{"blank", SearchQuery{Text: "   "}, nil},
		{"syntax is text", SearchQuery{Text: `parser NEAR( "unclosed AND title:x ^*`}, nil},
		{"custom marks", SearchQuery{Text: "grammar", MarkStart: "<b>", MarkEnd: "</b>"}, []string{"s1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Search(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range res.Sessions {
				ids = append(ids, m.Session.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
			if tc.q.MarkStart == "<b>" && !strings.Contains(res.Sessions[0].Hits[0].Snippet, "<b>grammar</b>") {
				t.Errorf("snippet %q", res.Sessions[0].Hits[0].Snippet)
			}
		})
	}
	if res, _ := s.Search(ctx, SearchQuery{Text: "parser", HitsPerSession: 1}); len(res.Sessions[0].Hits) != 1 {
		t.Errorf("HitsPerSession ignored: %d", len(res.Sessions[0].Hits))
	}
}

func TestFuseReciprocalRank(t *testing.T) {
	got := fuse([]int64{1, 2, 3}, []int64{3, 4})
	want := []fusedEvent{
		{id: 3, score: 1.0/63 + 1.0/61, wordRank: 3, meaningRank: 1},
		{id: 1, score: 1.0 / 61, wordRank: 1},
		{id: 2, score: 1.0 / 62, wordRank: 2}, // ties with 4; lower id first
		{id: 4, score: 1.0 / 62, meaningRank: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.id != w.id || math.Abs(g.score-w.score) > 1e-12 || g.wordRank != w.wordRank || g.meaningRank != w.meaningRank {
			t.Errorf("%d: got %+v, want %+v", i, g, w)
		}
	}
}

// indexAll runs one indexer pass to completion.
func indexAll(t *testing.T, s *Store, e Embedder) {
	t.Helper()
	ix, err := s.NewIndexer(IndexerConfig{Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	for {
		n, err := ix.step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func TestSearchHybrid(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, id := range []string{"db", "net", "ui"} {
		newSession(t, s, id)
	}
	appendText(t, s, "db", "user_message", "persist sessions in sqlite with a schema per table")
	appendText(t, s, "net", "user_message", "retry the http request after a socket timeout")
	appendText(t, s, "ui", "user_message", "render the storage usage on the terminal screen in color")
	emb := &Embedder{Model: "concepts", Embed: conceptEmbed}

	// Before the indexer ran there are no vectors: words only, and it says so.
	res, err := s.Search(ctx, SearchQuery{Text: "database storage", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if !res.WordsOnly || !strings.Contains(res.Notice, "no vectors yet") {
		t.Errorf("before indexing: flag %v notice %q", res.WordsOnly, res.Notice)
	}
	indexAll(t, s, *emb)

	// "database" is in no event, so words alone find nothing for it; by
	// meaning the sqlite session comes first.
	res, err = s.Search(ctx, SearchQuery{Text: "database", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if res.WordsOnly || res.Notice != "" || len(res.Sessions) == 0 || res.Sessions[0].Session.ID != "db" {
		t.Fatalf("by meaning: %+v", res)
	}
	if h := res.Sessions[0].Hits[0]; h.MeaningRank != 1 || h.WordRank != 0 || !strings.HasPrefix(h.Snippet, "persist sessions") {
		t.Errorf("meaning hit %+v", h)
	}

	// "storage" is a word of the ui session and the meaning of the db one:
	// fusion ranks both, the event found both ways first.
	appendText(t, s, "db", "assistant_text", "the storage layer writes each table through sqlite")
	indexAll(t, s, *emb)
	res, _ = s.Search(ctx, SearchQuery{Text: "storage", Embedder: emb})
	var ids []string
	for _, m := range res.Sessions {
		ids = append(ids, m.Session.ID)
	}
	if len(ids) < 2 || ids[0] != "db" || !slices.Contains(ids, "ui") {
		t.Fatalf("fused order %v", ids)
	}
	if h := res.Sessions[0].Hits[0]; h.WordRank == 0 || h.MeaningRank == 0 || !strings.Contains(h.Snippet, "«storage»") {
		t.Errorf("fused hit %+v", h)
	}

	failing := &Embedder{Model: "concepts", Embed: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("connection refused")
	}}
	res, err = s.Search(ctx, SearchQuery{Text: "storage", Embedder: failing})
	if err != nil || !res.WordsOnly || !strings.Contains(res.Notice, "connection refused") || len(res.Sessions) == 0 {
		t.Errorf("failing embedder: %+v %v", res, err)
	}
	wrongDim := &Embedder{Model: "concepts", Embed: func(context.Context, []string) ([][]float32, error) {
		return [][]float32{{1, 2, 3}}, nil
	}}
	if res, _ := s.Search(ctx, SearchQuery{Text: "storage", Embedder: wrongDim}); !res.WordsOnly {
		t.Errorf("wrong dimension used: %+v", res)
	}
}

func TestNearestExact(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	var items []vectorItem
	vecs := [][]float32{
		{1, 0, 0, 0, 0, 0, 0, 0},
		{0.9, 0.1, 0, 0, 0, 0, 0, 0},
		{0, 1, 0, 0, 0, 0, 0, 0},
		{-1, 0, 0, 0, 0, 0, 0, 0},
		{0.5, 0.5, 0.5, 0, 0, 0, 0, 0},
	}
	for i, v := range vecs {
		e := appendText(t, s, "a", "x", fmt.Sprint("event ", i))
		items = append(items, vectorItem{eventID: eventID(t, s, "a", e.Seq), vec: v})
	}
	if err := s.storeVectors(ctx, "m", items, items[len(items)-1].eventID); err != nil {
		t.Fatal(err)
	}
	hits, err := s.nearest(ctx, "m", []float32{1, 0.05, 0, 0, 0, 0, 0, 0}, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, h := range hits {
		got = append(got, h.eventID)
	}
	want := []int64{items[0].eventID, items[1].eventID, items[4].eventID}
	if !slices.Equal(got, want) {
		t.Errorf("nearest = %v, want %v", got, want)
	}
	if math.Abs(hits[0].similarity-cosine([]float32{1, 0.05, 0, 0, 0, 0, 0, 0}, vecs[0])) > 1e-9 {
		t.Errorf("similarity %v", hits[0].similarity)
	}
	if err := s.storeVectors(ctx, "m", []vectorItem{{eventID: items[0].eventID, vec: []float32{1, 2}}}, 0); err == nil {
		t.Error("a vector of another dimension was stored")
	}
	if err := s.storeVectors(ctx, "m", []vectorItem{{eventID: items[0].eventID, vec: []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}}}, 0); err == nil {
		t.Error("NaN was stored")
	}
	if _, err := s.nearest(ctx, "other", []float32{1}, 3, ""); !errors.Is(err, errNoVectors) {
		t.Errorf("unknown model: %v", err)
	}
	// Deleting the session removes its vectors from both tables.
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	var n int
	s.r.QueryRow("SELECT count(*) FROM embeddings").Scan(&n)
	var codes int
	s.r.QueryRow("SELECT count(*) FROM " + vecTable(8) + "_rowids").Scan(&codes)
	if n != 0 || codes != 0 {
		t.Errorf("after delete: %d embeddings, %d codes", n, codes)
	}
}

// TestNearestManyVectors checks the Hamming prefilter on more vectors than
// it keeps: a stored vector is always found by itself.
func TestNearestManyVectors(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "a")
	const n, dim = 1000, 64
	rng := newRand(7)
	var items []vectorItem
	var recs []*EventRecord
	for i := range n {
		v := make([]float32, dim)
		for d := range v {
			v[d] = float32(rng.NormFloat64())
		}
		items = append(items, vectorItem{eventID: int64(i + 1), vec: v})
		recs = append(recs, &EventRecord{Session: "a", Type: "x", Payload: []byte("{}"), Text: "e"})
	}
	bulkInsert(t, s, recs)
	if err := s.storeVectors(ctx, "m", items, n); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 417, 999} {
		hits, err := s.nearest(ctx, "m", items[i].vec, 5, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 5 || hits[0].eventID != items[i].eventID || math.Abs(hits[0].similarity-1) > 1e-6 {
			t.Errorf("query %d: %+v", i, hits)
		}
		for j := 1; j < len(hits); j++ {
			if hits[j].similarity > hits[j-1].similarity {
				t.Errorf("query %d: not sorted: %+v", i, hits)
			}
		}
	}
}

func eventID(t *testing.T, s *Store, session string, seq int64) int64 {
	t.Helper()
	var id int64
	if err := s.r.QueryRow("SELECT id FROM events WHERE session_id = ? AND seq = ?", session, seq).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSearchCommonWordsRankRecentMatches(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.wordWindow = 3
	newSession(t, s, "old")
	newSession(t, s, "new")
	// The oldest event is the best BM25 match, but five events match: only
	// the newest three are ranked.
	appendText(t, s, "old", "x", "build build build build")
	appendText(t, s, "old", "x", "build the project")
	for range 3 {
		appendText(t, s, "new", "x", "build it again with more words around")
	}
	res, err := s.Search(ctx, SearchQuery{Text: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.Sessions[0].Session.ID != "new" || len(res.Sessions[0].Hits) != 3 {
		t.Fatalf("sessions %+v", res.Sessions)
	}
	// A rarer word is not windowed.
	res, _ = s.Search(ctx, SearchQuery{Text: "project"})
	if len(res.Sessions) != 1 || res.Sessions[0].Session.ID != "old" {
		t.Errorf("rare word: %+v", res.Sessions)
	}
}
