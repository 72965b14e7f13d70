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
// returns the event as published, once it is durable.
func (s *Service) Emit(ctx context.Context, sessionID string, turn int, p event.Payload) (event.Event, error) {
	return s.emit(ctx, sessionID, turn, p, false)
}

// emitQueued is Emit for a running turn's events: a durable event is
// queued for the store's next group commit and Emit returns at once, with
// Seq, ParentSeq and At assigned; it is published, in order, only once the
// commit holding it is durable. A turn's dozen events per step thus share
// a commit instead of paying one each. If a queued event cannot be stored,
// it is never published, nor is anything emitted after it, and every later
// emit of the session fails until flushEmits reports the failure: the
// turn stops instead of showing what history will not have. The turn ends
// with flushEmits, so all of it is durable when Prompt returns.
func (s *Service) emitQueued(ctx context.Context, sessionID string, turn int, p event.Payload) (event.Event, error) {
	return s.emit(ctx, sessionID, turn, p, true)
}

func (s *Service) emit(ctx context.Context, sessionID string, turn int, p event.Payload, queued bool) (event.Event, error) {
	if p == nil {
		return event.Event{}, errors.New("emit: nil payload")
	}
	ev := event.Event{Session: sessionID, Turn: turn, At: s.now(), Data: p}
	lk := s.lockFor(sessionID)
	lk.Lock()
	defer lk.Unlock()
	pub := s.publisherFor(sessionID)
	if !ev.Durable() {
		if err := pub.ephemeral(s.bus, ev); err != nil {
			return ev, fmt.Errorf("publish %s event: %w", p.EventType(), err)
		}
		return ev, nil
	}
	if um, ok := p.(event.UserMessage); ok {
		// The images' bytes first: the log keeps their references.
		if err := s.storeImages(ctx, um); err != nil {
			return ev, fmt.Errorf("record %s event: %w", p.EventType(), err)
		}
	}
	data, err := json.Marshal(p)
	if err != nil {
		return ev, fmt.Errorf("encode %s event: %w", p.EventType(), err)
	}
	rec := &store.EventRecord{Session: sessionID, Turn: turn, Type: string(p.EventType()), Payload: data, Marshalled: true, Text: searchText(p)}
	item, err := pub.durable(ctx, s.store, s.bus, ev, rec, !queued)
	if err != nil {
		return ev, fmt.Errorf("record %s event: %w", p.EventType(), err)
	}
	// The stored values, so a replay is identical to what was published
	// (the store keeps milliseconds).
	ev = item.ev
	if queued {
		return ev, nil
	}
	// Committed at once, not after the store's commit delay. (An error
	// here is ErrClosed, which the append's own answer reports too.)
	_ = s.store.Flush(context.WithoutCancel(ctx))
	<-item.settled
	if item.err != nil {
		return ev, fmt.Errorf("record %s event: %w", p.EventType(), item.err)
	}
	return ev, nil
}

// syncEmits waits until every event emitted in the session so far is
// stored and published (or failed), without the store's commit delay. It
// reports the failure of a queued event, if any, and leaves it for
// flushEmits to report again: the turn stops either way.
func (s *Service) syncEmits(ctx context.Context, id string) error {
	if err := s.store.Flush(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("record events: %w", err)
	}
	pub := s.publisherFor(id)
	pub.mu.Lock()
	defer pub.mu.Unlock()
	if pub.failed != nil {
		return fmt.Errorf("record events: %w", pub.failed)
	}
	return nil
}

// flushEmits waits until every event emitted in the session so far is
// stored and published (or failed), and returns — once — the failure of a
// queued event, if any.
func (s *Service) flushEmits(id string) error {
	// The store commits at once what waits for its commit delay.
	_ = s.store.Flush(context.Background()) // ErrClosed: the appends fail and say so
	pub := s.publisherFor(id)
	pub.mu.Lock()
	var wait chan struct{}
	if len(pub.pending) > 0 {
		wait = make(chan struct{})
		pub.pending = append(pub.pending, &publication{ready: true, barrier: true, settled: wait})
	}
	pub.mu.Unlock()
	if wait != nil {
		<-wait
	}
	pub.mu.Lock()
	defer pub.mu.Unlock()
	err := pub.failed
	pub.failed = nil
	if err != nil {
		return fmt.Errorf("record events: %w", err)
	}
	return nil
}

// publisher publishes one session's events in emit order, each durable
// one only once the store acknowledged it.
type publisher struct {
	mu      sync.Mutex
	pending []*publication // emitted, not yet published; the first is the oldest
	// failed is the first failure of a queued event, until flushEmits
	// reports it.
	failed error
	// ack is the store's callback for every durable event of the session
	// (settleNext), made once instead of a closure per event.
	ack func(error)
}

// publication is one emitted event waiting for its turn to be published.
type publication struct {
	ev      event.Event
	ready   bool          // stored (or ephemeral): published when all before it are
	err     error         // why it was not stored
	barrier bool          // a flushEmits marker, not an event
	settled chan struct{} // closed once published or failed; nil when nobody waits
}

func (s *Service) publisherFor(id string) *publisher {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.liveLocked(id).pub
}

// ephemeral publishes ev now, or after the events emitted before it.
func (p *publisher) ephemeral(bus *event.Bus, ev event.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed != nil {
		return p.failed
	}
	if len(p.pending) == 0 {
		bus.Publish(ev)
		return nil
	}
	p.pending = append(p.pending, &publication{ev: ev, ready: true})
	return nil
}

// durable queues rec in the store and its event behind the session's
// pending ones. wait: the caller will wait for settled.
func (p *publisher) durable(ctx context.Context, st Log, bus *event.Bus, ev event.Event, rec *store.EventRecord, wait bool) (*publication, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed != nil {
		return nil, p.failed
	}
	item := &publication{}
	if wait {
		item.settled = make(chan struct{})
	}
	// The store calls back from its committer, which may happen before
	// AppendAsync returns: settleNext waits for p.mu, which is held until
	// item is queued.
	if p.ack == nil {
		p.ack = func(err error) { p.settleNext(bus, err) }
	}
	if err := st.AppendAsync(ctx, rec, p.ack); err != nil {
		return nil, err
	}
	ev.Seq, ev.ParentSeq, ev.At = rec.Seq, rec.ParentSeq, rec.At
	item.ev = ev
	p.pending = append(p.pending, item)
	return item, nil
}

// settleNext records the store's answer for the oldest durable event not
// yet answered: the store answers a session's events in the order they
// were queued, and they were queued in the order of p.pending.
func (p *publisher) settleNext(bus *event.Bus, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, it := range p.pending {
		if !it.ready {
			p.settleLocked(bus, it, err)
			return
		}
	}
}

// settleLocked records the store's answer for item and publishes every
// event at the head of the queue that is ready. p.mu is held.
func (p *publisher) settleLocked(bus *event.Bus, item *publication, err error) {
	item.ready, item.err = true, err
	if err != nil && item.settled == nil && p.failed == nil {
		p.failed = err // a queued event: nobody waits to be told
	}
	n := 0
	for _, it := range p.pending {
		if !it.ready {
			break
		}
		n++
		if it.err == nil && !it.barrier && p.failed == nil {
			bus.Publish(it.ev)
		}
		if it.settled != nil {
			close(it.settled)
		}
	}
	clear(p.pending[:n])
	p.pending = p.pending[n:]
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
	return &s.liveLocked(id).emitMu
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
