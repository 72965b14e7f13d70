package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// SearchQuery asks for sessions matching Text.
type SearchQuery struct {
	Text      string
	Workspace string // "": every workspace
	// Limit is how many sessions to return (default 20); HitsPerSession
	// how many matching events each shows (default 3).
	Limit          int
	HitsPerSession int
	// Embedder, when set, adds search by meaning over the vectors the
	// Indexer computed with the same model. Nil searches by words only.
	Embedder *Embedder
	// EmbedTimeout bounds embedding the query (default 3 s): an
	// unreachable model server degrades search to words, it does not
	// stall it.
	EmbedTimeout time.Duration
	// MarkStart and MarkEnd surround matched words in snippets (default
	// "«" and "»").
	MarkStart, MarkEnd string
}

// SearchResult is a search's answer, best session first.
type SearchResult struct {
	Sessions []SessionMatch `json:"sessions"`
	// WordsOnly is true when no vectors took part; Notice says why (no
	// embedding model configured, the model failed, no vectors yet).
	WordsOnly bool   `json:"wordsOnly"`
	Notice    string `json:"notice,omitempty"`
}

// SessionMatch is one session with its best matching events.
type SessionMatch struct {
	Session Session `json:"session"`
	Score   float64 `json:"score"`
	// TitleSnippet is the highlighted title when the title matched.
	TitleSnippet string       `json:"titleSnippet,omitempty"`
	Hits         []EventMatch `json:"hits"`
}

// EventMatch is one matching event.
type EventMatch struct {
	Seq     int64     `json:"seq"`
	Turn    int       `json:"turn"`
	Type    string    `json:"type"`
	At      time.Time `json:"at"`
	Snippet string    `json:"snippet"`
	Score   float64   `json:"score"`
	// WordRank and MeaningRank are the event's 1-based places in the
	// word (BM25) and meaning (vector) rankings; 0 when absent from one.
	WordRank    int `json:"wordRank,omitempty"`
	MeaningRank int `json:"meaningRank,omitempty"`

	eventID int64
}

// Ranking parameters.
const (
	rrfK         = 60  // reciprocal rank fusion constant (Cormack et al.)
	wordDepth    = 200 // events taken from the BM25 ranking
	meaningDepth = 50  // events taken from the vector ranking
	// defaultWordWindow bounds the matches BM25 ranks. Scoring costs time per
	// match, and a word found in most events (say "error") matches
	// hundreds of thousands: such queries rank the most recent wordWindow
	// matches, found cheaply in the index's rowid order.
	// Store.wordWindow holds it (tests lower it).
	defaultWordWindow = 5_000
	titleDepth        = 50
	snippetTokens     = 16
)

// Search finds sessions by the words of their events and titles (FTS5,
// BM25) and, with an Embedder, by meaning (vectors). The word and meaning
// rankings of events are fused by reciprocal rank fusion (k = 60); a
// session scores as its best event plus its title's fused rank. Query text
// is never FTS5 syntax: see ftsQuery.
func (s *Store) Search(ctx context.Context, q SearchQuery) (*SearchResult, error) {
	q = q.withDefaults()
	res := &SearchResult{WordsOnly: true}
	match := ftsQuery(q.Text, false)
	if strings.TrimSpace(q.Text) == "" {
		return res, nil
	}
	if err := s.flushFTS(ctx); err != nil {
		return nil, fmt.Errorf("search %q: bring the index up to date: %w", q.Text, err)
	}
	words, err := s.wordRanking(ctx, match, q.Workspace)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("search %q: %w", q.Text, err))
	}
	titles, err := s.titleRanking(ctx, match, q.Workspace)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("search %q: %w", q.Text, err))
	}
	meaning, notice := s.meaningRanking(ctx, q)
	res.WordsOnly, res.Notice = meaning == nil, notice

	fused := fuse(words, meaning)
	if len(fused) == 0 && len(titles) == 0 {
		return res, nil
	}
	info, err := s.eventInfo(ctx, fused)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("search %q: %w", q.Text, err))
	}
	matches := group(fused, info, titles, q.HitsPerSession)
	if matches, err = s.fillSessions(ctx, matches); err != nil {
		return nil, classify(s.file, fmt.Errorf("search %q: %w", q.Text, err))
	}
	sort.SliceStable(matches, func(i, j int) bool {
		a, b := matches[i], matches[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if !a.Session.UpdatedAt.Equal(b.Session.UpdatedAt) {
			return a.Session.UpdatedAt.After(b.Session.UpdatedAt)
		}
		return a.Session.ID > b.Session.ID
	})
	matches = page(matches, 0, q.Limit)
	if err := s.fillSnippets(ctx, q, match, matches); err != nil {
		return nil, classify(s.file, fmt.Errorf("search %q: %w", q.Text, err))
	}
	res.Sessions = matches
	return res, nil
}

func (q SearchQuery) withDefaults() SearchQuery {
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.HitsPerSession <= 0 {
		q.HitsPerSession = 3
	}
	if q.EmbedTimeout <= 0 {
		q.EmbedTimeout = 3 * time.Second
	}
	if q.MarkStart == "" && q.MarkEnd == "" {
		q.MarkStart, q.MarkEnd = "«", "»"
	}
	return q
}

// wordRanking returns event ids by BM25, best first, among the latest
// s.wordWindow matches.
func (s *Store) wordRanking(ctx context.Context, match, workspace string) ([]int64, error) {
	if match == "" {
		return nil, nil
	}
	var floor int64 // rowid of the s.wordWindow-th newest match; 0 when there are fewer
	err := s.r.QueryRowContext(ctx, `SELECT rowid FROM events_fts WHERE events_fts MATCH ?
		ORDER BY rowid DESC LIMIT 1 OFFSET ?`, match, s.wordWindow-1).Scan(&floor)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if workspace == "" {
		return s.ids(ctx, `SELECT rowid FROM events_fts WHERE events_fts MATCH ? AND rowid >= ?
			ORDER BY rank LIMIT ?`, match, floor, wordDepth)
	}
	return s.ids(ctx, `SELECT f.rowid FROM events_fts f JOIN events e ON e.id = f.rowid
		JOIN sessions ss ON ss.id = e.session_id
		WHERE events_fts MATCH ? AND f.rowid >= ? AND ss.workspace = ? ORDER BY f.rank LIMIT ?`,
		match, floor, workspace, wordDepth)
}

// titleRanking returns session ids whose titles match, best first.
func (s *Store) titleRanking(ctx context.Context, match, workspace string) ([]string, error) {
	if match == "" {
		return nil, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT ss.id FROM titles_fts t JOIN sessions ss ON ss.rid = t.rowid
		WHERE titles_fts MATCH ? AND (? = '' OR ss.workspace = ?) ORDER BY t.rank LIMIT ?`,
		match, workspace, workspace, titleDepth)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (s *Store) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// meaningRanking returns event ids by vector similarity, or nil and the
// reason search falls back to words.
func (s *Store) meaningRanking(ctx context.Context, q SearchQuery) ([]int64, string) {
	if q.Embedder == nil || q.Embedder.Embed == nil {
		return nil, "searched by words only: no embedding model is configured"
	}
	name := q.Embedder.Model
	ectx, cancel := context.WithTimeout(ctx, q.EmbedTimeout)
	vecs, err := q.Embedder.Embed(ectx, []string{q.Text})
	cancel()
	if err == nil && len(vecs) != 1 {
		err = fmt.Errorf("returned %d vectors for 1 text", len(vecs))
	}
	if err != nil {
		return nil, fmt.Sprintf("searched by words only: embedding model %s failed: %v", name, err)
	}
	hits, err := s.nearest(ctx, name, vecs[0], meaningDepth, q.Workspace)
	if errors.Is(err, errNoVectors) {
		return nil, fmt.Sprintf("searched by words only: no vectors yet for embedding model %s "+
			"(they are computed in the background)", name)
	}
	if err != nil {
		return nil, fmt.Sprintf("searched by words only: vector search with %s failed: %v", name, err)
	}
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.eventID
	}
	return out, ""
}

// fusedEvent is an event's reciprocal-rank-fusion score.
type fusedEvent struct {
	id                    int64
	score                 float64
	wordRank, meaningRank int
}

// fuse combines rankings by reciprocal rank fusion: each event scores
// Σ 1/(k + rank) over the rankings it appears in. Best first; ties by id.
func fuse(words, meaning []int64) []fusedEvent {
	byID := map[int64]*fusedEvent{}
	var order []*fusedEvent
	add := func(list []int64, setRank func(*fusedEvent, int)) {
		for i, id := range list {
			f, ok := byID[id]
			if !ok {
				f = &fusedEvent{id: id}
				byID[id] = f
				order = append(order, f)
			}
			f.score += 1 / float64(rrfK+i+1)
			setRank(f, i+1)
		}
	}
	add(words, func(f *fusedEvent, r int) { f.wordRank = r })
	add(meaning, func(f *fusedEvent, r int) { f.meaningRank = r })
	out := make([]fusedEvent, len(order))
	for i, f := range order {
		out[i] = *f
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].id < out[j].id
	})
	return out
}

// eventMeta is what grouping and display need of a matched event.
type eventMeta struct {
	session string
	seq     int64
	turn    int
	typ     string
	at      time.Time
	text    string
}

func (s *Store) eventInfo(ctx context.Context, fused []fusedEvent) (map[int64]eventMeta, error) {
	ids := make([]int64, len(fused))
	for i, f := range fused {
		ids[i] = f.id
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, session_id, seq, turn, type, created_at,
		substr(coalesce(text, ''), 1, 400) FROM events WHERE id IN (SELECT value FROM json_each(?))`, seqList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]eventMeta, len(ids))
	for rows.Next() {
		var id, at int64
		var m eventMeta
		if err := rows.Scan(&id, &m.session, &m.seq, &m.turn, &m.typ, &at, &m.text); err != nil {
			return nil, err
		}
		m.at = fromMillis(at)
		out[id] = m
	}
	return out, rows.Err()
}

// group gathers fused events by session: a session scores as its best
// event plus 1/(k + rank) of its title, and keeps its best hits.
func group(fused []fusedEvent, info map[int64]eventMeta, titles []string, hits int) []SessionMatch {
	bySession := map[string]*SessionMatch{}
	var order []*SessionMatch
	get := func(id string) *SessionMatch {
		m, ok := bySession[id]
		if !ok {
			m = &SessionMatch{Session: Session{ID: id}}
			bySession[id] = m
			order = append(order, m)
		}
		return m
	}
	for _, f := range fused { // best first, so the first event seen is the best
		meta, ok := info[f.id]
		if !ok {
			continue // deleted since it was ranked
		}
		m := get(meta.session)
		if len(m.Hits) == 0 {
			m.Score = f.score
		}
		if len(m.Hits) < hits {
			m.Hits = append(m.Hits, EventMatch{eventID: f.id, Seq: meta.seq, Turn: meta.turn, Type: meta.typ,
				At: meta.at, Score: f.score, WordRank: f.wordRank, MeaningRank: f.meaningRank,
				Snippet: excerpt(meta.text)})
		}
	}
	for i, id := range titles {
		m := get(id)
		m.Score += 1 / float64(rrfK+i+1)
		m.TitleSnippet = "\x00" // marks a title match; fillSnippets writes the text
	}
	out := make([]SessionMatch, len(order))
	for i, m := range order {
		out[i] = *m
	}
	return out
}

// excerpt is the start of an event's text, for events found by meaning
// alone (no matched words to highlight).
func excerpt(text string) string {
	const max = 160
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	r := []rune(text)
	return string(r[:max]) + "…"
}
