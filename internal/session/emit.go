package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// Emit publishes an event of session sessionID and turn. A durable event is
// appended to the store first (which assigns Seq, ParentSeq and At) and
// published only once stored; an ephemeral one is only published. Emits of
// one session are serialized, so subscribers receive them in Seq order. It
// returns the event as published.
func (s *Service) Emit(ctx context.Context, sessionID string, turn int, p event.Payload) (event.Event, error) {
	if p == nil {
		return event.Event{}, errors.New("emit: nil payload")
	}
	ev := event.Event{Session: sessionID, Turn: turn, At: s.now(), Data: p}
	lk := s.lockFor(sessionID)
	lk.Lock()
	defer lk.Unlock()
	if ev.Durable() {
		data, err := json.Marshal(p)
		if err != nil {
			return ev, fmt.Errorf("encode %s event: %w", p.EventType(), err)
		}
		rec := &store.EventRecord{Session: sessionID, Turn: turn, Type: string(p.EventType()), Payload: data, Text: searchText(p)}
		if err := s.store.Append(ctx, rec); err != nil {
			return ev, fmt.Errorf("record %s event: %w", p.EventType(), err)
		}
		// The stored values, so a replay is identical to what was published
		// (the store keeps milliseconds).
		ev.Seq, ev.ParentSeq, ev.At = rec.Seq, rec.ParentSeq, rec.At
	}
	s.bus.Publish(ev)
	return ev, nil
}

// searchText is the text session search indexes for an event: what the
// person and the model said, and titles.
func searchText(p event.Payload) string {
	switch p := p.(type) {
	case event.UserMessage:
		return p.Text
	case event.AssistantMessage:
		return p.Text
	case event.FinalMessage:
		return p.Text
	case event.TitleChanged:
		return p.Title
	}
	return ""
}

// lockFor returns the mutex that orders the emits of one session.
func (s *Service) lockFor(id string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.locks[id]
	if lk == nil {
		lk = &sync.Mutex{}
		s.locks[id] = lk
	}
	return lk
}

// decode turns a stored record back into the event that was published.
func decode(rec store.EventRecord) (event.Event, error) {
	p, err := event.DecodePayload(event.Type(rec.Type), rec.Payload)
	if err != nil {
		return event.Event{}, fmt.Errorf("event %d of session %s: %w", rec.Seq, rec.Session, err)
	}
	return event.Event{Session: rec.Session, Seq: rec.Seq, ParentSeq: rec.ParentSeq, Turn: rec.Turn, At: rec.At, Data: p}, nil
}

func decodeAll(recs []store.EventRecord) ([]event.Event, error) {
	out := make([]event.Event, 0, len(recs))
	for _, r := range recs {
		ev, err := decode(r)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
