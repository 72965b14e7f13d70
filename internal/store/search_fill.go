package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// fillSessions loads each match's session, dropping matches whose session
// is gone.
func (s *Store) fillSessions(ctx context.Context, matches []SessionMatch) ([]SessionMatch, error) {
	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = m.Session.ID
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionSelect+` FROM sessions
		WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[string]*Session{}
	for rows.Next() {
		sess, err := s.scanSession(rows)
		if err != nil {
			return nil, err
		}
		byID[sess.ID] = sess
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := matches[:0]
	for _, m := range matches {
		if sess, ok := byID[m.Session.ID]; ok {
			m.Session = *sess
			out = append(out, m)
		}
	}
	return out, nil
}

// fillSnippets highlights the matched words in the shown events and
// titles. Only the few shown get snippets: computing them for every match
// would cost more than the search.
func (s *Store) fillSnippets(ctx context.Context, q SearchQuery, match string, matches []SessionMatch) error {
	if match == "" {
		for i := range matches {
			matches[i].TitleSnippet = ""
		}
		return nil
	}
	byID := map[int64]*EventMatch{}
	var ids []int64
	for i := range matches {
		for j := range matches[i].Hits {
			if h := &matches[i].Hits[j]; h.WordRank > 0 {
				byID[h.eventID] = h
				ids = append(ids, h.eventID)
			}
		}
	}
	if len(ids) > 0 {
		rows, err := s.r.QueryContext(ctx, `SELECT rowid, snippet(events_fts, 0, ?, ?, '…', ?)
			FROM events_fts WHERE events_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
			q.MarkStart, q.MarkEnd, snippetTokens, match, seqList(ids))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var snippet string
			if err := rows.Scan(&id, &snippet); err != nil {
				return err
			}
			if h := byID[id]; h != nil {
				h.Snippet = snippet
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return s.fillTitles(ctx, q, match, matches)
}

func (s *Store) fillTitles(ctx context.Context, q SearchQuery, match string, matches []SessionMatch) error {
	for i := range matches {
		m := &matches[i]
		if m.TitleSnippet == "" {
			continue
		}
		err := s.r.QueryRowContext(ctx, `SELECT highlight(titles_fts, 0, ?, ?) FROM titles_fts
			WHERE titles_fts MATCH ? AND rowid = (SELECT rid FROM sessions WHERE id = ?)`,
			q.MarkStart, q.MarkEnd, match, m.Session.ID).Scan(&m.TitleSnippet)
		if errors.Is(err, sql.ErrNoRows) {
			m.TitleSnippet = m.Session.Title // renamed since it matched
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
