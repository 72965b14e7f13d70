// Package event defines everything olly shows a person as typed events, and
// their one JSON wire form. Every frontend (print, RPC, web, TUI) renders
// the same events, and stored sessions replay the same events, so history
// is identical to the live view by construction (seed critical rule #1).
//
// Events are durable or ephemeral. Durable events are appended to the
// session's log before anyone sees them; ephemeral events (streaming
// deltas, spinners) are only published, and each is superseded by a durable
// event carrying the final content — rendering the durable events alone
// gives the same final screen as watching live.
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Type names an event on the wire (snake_case).
type Type string

// Event is one thing that happened in a session.
type Event struct {
	// Session is the session's id.
	Session string `json:"sessionId"`
	// Seq is the event's position in the session's log, assigned when it is
	// stored; 0 for ephemeral events.
	Seq int64 `json:"seq,omitempty"`
	// ParentSeq is the event this one follows on its branch of the session
	// tree (0 for the first); assigned when stored.
	ParentSeq int64 `json:"parentSeq,omitempty"`
	// Turn counts the person's prompts in the session: everything the agent
	// shows for one prompt shares its turn and renders as one assistant
	// message (seed critical rule #3).
	Turn int `json:"turn"`
	// At is when the event happened.
	At time.Time `json:"at"`
	// Data is the typed payload; its Type is the event's type.
	Data Payload `json:"-"`
}

// Type returns the event's type, from its payload.
func (e Event) Type() Type {
	if e.Data == nil {
		return ""
	}
	return e.Data.EventType()
}

// Durable reports whether the event is stored in the session log.
func (e Event) Durable() bool { return e.Data != nil && Durable(e.Data.EventType()) }

// Payload is the body of one event type.
type Payload interface {
	// EventType is the wire name of the payload's event type.
	EventType() Type
}

// wire is the JSON form: the envelope with "type" and the payload under
// "data".
type wire struct {
	Type      Type            `json:"type"`
	Session   string          `json:"sessionId"`
	Seq       int64           `json:"seq,omitempty"`
	ParentSeq int64           `json:"parentSeq,omitempty"`
	Turn      int             `json:"turn"`
	At        time.Time       `json:"at"`
	Data      json.RawMessage `json:"data"`
}

// MarshalJSON writes the wire form.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Data == nil {
		return nil, fmt.Errorf("event %d of session %s has no payload", e.Seq, e.Session)
	}
	data, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", e.Data.EventType(), err)
	}
	return json.Marshal(wire{
		Type: e.Data.EventType(), Session: e.Session, Seq: e.Seq, ParentSeq: e.ParentSeq,
		Turn: e.Turn, At: e.At, Data: data,
	})
}

// UnmarshalJSON reads the wire form. An unknown type is an error: the
// reader is older than the writer, and guessing would lose information.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("decode event: %w", err)
	}
	p, err := DecodePayload(w.Type, w.Data)
	if err != nil {
		return err
	}
	*e = Event{Session: w.Session, Seq: w.Seq, ParentSeq: w.ParentSeq, Turn: w.Turn, At: w.At, Data: p}
	return nil
}

// DecodePayload decodes the payload of an event of type t.
func DecodePayload(t Type, data []byte) (Payload, error) {
	info, ok := registry[t]
	if !ok {
		return nil, fmt.Errorf("unknown event type %q (written by a newer olly?)", t)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = nil
	}
	p, err := info.decode(trimmed)
	if err != nil {
		return nil, fmt.Errorf("decode %s payload: %w", t, err)
	}
	return p, nil
}

// Durable reports whether events of type t are stored.
func Durable(t Type) bool {
	info, ok := registry[t]
	return ok && info.durable
}

// Known reports whether t is an event type this olly knows.
func Known(t Type) bool {
	_, ok := registry[t]
	return ok
}

// Types lists every event type, in the order of the reference (docs/events.md).
func Types() []Type {
	out := make([]Type, len(order))
	copy(out, order)
	return out
}
