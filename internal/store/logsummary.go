package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// LogSummary sums up one session's log for a listing: how far it goes and
// how many events of each type it holds (every branch included). The store
// does not know what the types mean; the caller picks the ones it counts.
type LogSummary struct {
	// LastSeq is the highest seq in the log (0: no events). A client that
	// wants only what happens next subscribes after it.
	LastSeq int64 `json:"lastSeq"`
	// Counts maps an event type to its number of events.
	Counts map[string]int `json:"counts"`
}

// LastSeq returns the highest seq of the session's log, 0 when it has no
// events. It reads one index entry.
func (s *Store) LastSeq(ctx context.Context, session string) (int64, error) {
	var seq int64
	err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM events WHERE session_id = ?`, session).Scan(&seq)
	if err != nil {
		return 0, classify(s.file, fmt.Errorf("last seq of session %s: %w", session, err))
	}
	return seq, nil
}

// SummarizeLogs returns the LogSummary of each session in ids that has
// events; sessions without events are absent from the map.
func (s *Store) SummarizeLogs(ctx context.Context, ids []string) (map[string]LogSummary, error) {
	out := map[string]LogSummary{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("summarize session logs: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT session_id, type, count(*), max(seq) FROM events
		WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id, type`, string(list))
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("summarize session logs: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, typ string
			n       int
			last    int64
		)
		if err := rows.Scan(&id, &typ, &n, &last); err != nil {
			return nil, classify(s.file, fmt.Errorf("summarize session logs: %w", err))
		}
		sum := out[id]
		if sum.Counts == nil {
			sum.Counts = map[string]int{}
		}
		sum.Counts[typ] = n
		sum.LastSeq = max(sum.LastSeq, last)
		out[id] = sum
	}
	if err := rows.Err(); err != nil {
		return nil, classify(s.file, fmt.Errorf("summarize session logs: %w", err))
	}
	return out, nil
}
