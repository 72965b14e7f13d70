package approval

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/olly-agent/olly/internal/event"
)

// Emit publishes an event of the request's session (and turn). The session
// service's Emit stores durable events before publishing them, which is
// what makes history show the approval exactly as it happened.
type Emit func(ctx context.Context, p event.Payload) error

// Options configure a Manager.
type Options struct {
	// Default is the policy of sessions that have none set.
	Default Policy
	// NewID returns a fresh approval id; nil uses random "ap_" ids.
	NewID func() string
}

// Manager creates approval requests, waits for their answers and settles
// them. Any number of requests may be pending at once, across sessions. It
// is safe for concurrent use.
type Manager struct {
	newID func() string

	mu       sync.Mutex
	def      Policy
	policies map[string]Policy
	pending  map[string]*pending
	seq      uint64
}

// pending is a request waiting for its answer. settled receives exactly
// one Decision, sent under Manager.mu by whoever removes the request from
// the map, so an answer and a cancellation can never both win.
type pending struct {
	session string
	seq     uint64
	ev      event.ApprovalRequested
	settled chan Decision
}

// NewManager returns a manager with no pending requests.
func NewManager(opts Options) *Manager {
	m := &Manager{newID: opts.NewID, def: opts.Default, policies: map[string]Policy{}, pending: map[string]*pending{}}
	if m.newID == nil {
		m.newID = randomID
	}
	return m
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ap_" + hex.EncodeToString(b[:])
}

// SetPolicy sets the policy of a session (its auto-approve toggles, and
// whether anyone can answer). It applies to requests made afterwards.
func (m *Manager) SetPolicy(session string, p Policy) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.policies[session] = p
}

// Policy returns a session's policy: the one set, or the default.
func (m *Manager) Policy(session string) Policy {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.policies[session]; ok {
		return p
	}
	return m.def
}

// ForgetSession drops a session's policy and cancels its pending requests,
// for when the session is closed.
func (m *Manager) ForgetSession(session string) {
	m.CancelSession(session)
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.policies, session)
}

// Request settles req: at once when the session's policy answers it (see
// Policy.Route), otherwise when a frontend answers, ctx ends (canceled) or
// the session is canceled. It emits approval_requested and then
// approval_resolved through emit (nil: no events) — also for automatic
// answers, so the record shows what ran without asking.
//
// An error means the request could not be recorded or was malformed; the
// action must not go ahead. A ctx already done before the request settles
// it as canceled without any event.
func (m *Manager) Request(ctx context.Context, emit Emit, req Request) (Decision, error) {
	if err := req.check(); err != nil {
		return Decision{}, err
	}
	if ctx.Err() != nil {
		return Decision{Outcome: event.DecisionCanceled}, nil
	}
	pol := m.Policy(req.Session)
	route, why := pol.RouteRequest(req)
	id := m.newID()
	ev := req.event(id, pol.EffectiveMode())
	var p *pending
	if route == Ask {
		// Registered before the event goes out, so an answer sent the
		// moment a frontend sees the request finds it.
		p = m.register(req.Session, ev)
	}
	if err := send(ctx, emit, ev); err != nil {
		if p != nil {
			m.drop(id)
		}
		return Decision{}, fmt.Errorf("record approval request %s: %w", id, err)
	}
	var d Decision
	switch route {
	case AutoApprove:
		d = Decision{ApprovalID: id, Outcome: event.DecisionApproved, Auto: true}
	case AutoDeny:
		d = Decision{ApprovalID: id, Outcome: event.DecisionDenied, Auto: true, Reason: why}
	default:
		d = m.wait(ctx, p)
	}
	d.ApprovalID = id
	// The answer is recorded even when ctx is done: the person must see
	// how the request ended.
	if err := send(context.WithoutCancel(ctx), emit, d.event(req.Kind)); err != nil {
		return d, fmt.Errorf("record approval answer %s: %w", id, err)
	}
	return d, nil
}

func send(ctx context.Context, emit Emit, p event.Payload) error {
	if emit == nil {
		return nil
	}
	return emit(ctx, p)
}

func (m *Manager) register(session string, ev event.ApprovalRequested) *pending {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	p := &pending{session: session, seq: m.seq, ev: ev, settled: make(chan Decision, 1)}
	m.pending[ev.ApprovalID] = p
	return p
}

func (m *Manager) drop(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, id)
}

// wait blocks until p is settled or ctx ends.
func (m *Manager) wait(ctx context.Context, p *pending) Decision {
	select {
	case d := <-p.settled:
		return d
	case <-ctx.Done():
	}
	m.mu.Lock()
	if _, still := m.pending[p.ev.ApprovalID]; still {
		delete(m.pending, p.ev.ApprovalID)
		m.mu.Unlock()
		return Decision{Outcome: event.DecisionCanceled}
	}
	m.mu.Unlock()
	// An answer won the race; it is already in the channel.
	return <-p.settled
}

// Answer settles a pending request of session with the person's answer.
// It fails with ErrNotPending when no such request waits (it may have been
// answered already or canceled), and refuses an edited command on a
// request that is not a command.
func (m *Manager) Answer(session, approvalID string, a Answer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pending[approvalID]
	if !ok || p.session != session {
		return fmt.Errorf("%w: %s in session %s (it may have been answered or canceled already)", ErrNotPending, approvalID, session)
	}
	d := Decision{ApprovalID: approvalID, Outcome: event.DecisionDenied, Reason: strings.TrimSpace(a.Reason)}
	if a.Approve {
		d = Decision{ApprovalID: approvalID, Outcome: event.DecisionApproved}
		if edited := strings.TrimSpace(a.Command); edited != "" && edited != strings.TrimSpace(p.ev.Command) {
			if p.ev.Kind != event.ApprovalCommand {
				return fmt.Errorf("approval %s is a %s request: only commands can be edited before approving", approvalID, p.ev.Kind)
			}
			d.Command = edited
		}
		if a.OutsideSandbox && p.ev.Kind != event.ApprovalCommand {
			return fmt.Errorf("approval %s is a %s request: only commands run in a sandbox", approvalID, p.ev.Kind)
		}
		// Approving the model's request to run outside the sandbox grants
		// exactly that; otherwise only the person's explicit choice does.
		d.OutsideSandbox = a.OutsideSandbox || escalates(p.ev.Sandbox)
	}
	delete(m.pending, approvalID)
	p.settled <- d
	return nil
}

// CancelSession settles every pending request of session as canceled and
// returns how many there were. The session service calls it when a turn is
// aborted and at shutdown; each waiting Request then records the
// cancellation and returns.
func (m *Manager) CancelSession(session string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, p := range m.pending {
		if p.session != session {
			continue
		}
		delete(m.pending, id)
		p.settled <- Decision{ApprovalID: id, Outcome: event.DecisionCanceled}
		n++
	}
	return n
}

// Pending returns the requests of session still waiting for an answer, in
// the order they were made, so a frontend that (re)connects can show them.
func (m *Manager) Pending(session string) []event.ApprovalRequested {
	m.mu.Lock()
	var ps []*pending
	for _, p := range m.pending {
		if p.session == session {
			ps = append(ps, p)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(ps, func(a, b *pending) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]event.ApprovalRequested, len(ps))
	for i, p := range ps {
		out[i] = p.ev
	}
	return out
}
