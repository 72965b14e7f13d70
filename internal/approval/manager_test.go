package approval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is an Emit that keeps what it was given and signals each
// approval_requested, so a test can answer the moment a request is shown.
type recorder struct {
	mu        sync.Mutex
	events    []event.Payload
	requested chan event.ApprovalRequested
	failOn    event.Type
}

func newRecorder() *recorder {
	return &recorder{requested: make(chan event.ApprovalRequested, 64)}
}

func (r *recorder) emit(ctx context.Context, p event.Payload) error {
	if p.EventType() == r.failOn {
		return errors.New("store is read-only")
	}
	r.mu.Lock()
	r.events = append(r.events, p)
	r.mu.Unlock()
	if req, ok := p.(event.ApprovalRequested); ok {
		r.requested <- req
	}
	return nil
}

func (r *recorder) all() []event.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Payload(nil), r.events...)
}

func (r *recorder) next(t *testing.T) event.ApprovalRequested {
	t.Helper()
	select {
	case req := <-r.requested:
		return req
	case <-time.After(10 * time.Second):
		t.Fatal("no approval was requested")
		return event.ApprovalRequested{}
	}
}

func counter() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("ap%d", n.Add(1)) }
}

func command(session, cmd string, sev safety.Severity) Request {
	return Request{Session: session, ActionID: "a1", Kind: event.ApprovalCommand, Command: cmd, Cwd: ".", Severity: sev, Reason: "test"}
}

// ask runs m.Request in a goroutine and returns a channel with its result.
type result struct {
	d   Decision
	err error
}

func ask(ctx context.Context, m *Manager, rec *recorder, req Request) <-chan result {
	out := make(chan result, 1)
	go func() {
		d, err := m.Request(ctx, rec.emit, req)
		out <- result{d, err}
	}()
	return out
}

func waitResult(t *testing.T, c <-chan result) result {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("request did not settle")
		return result{}
	}
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name     string
		answer   Answer
		outcome  string
		command  string
		reason   string
		resolved event.ApprovalResolved
	}{
		{"approve", Answer{Approve: true}, event.DecisionApproved, "", "",
			event.ApprovalResolved{ApprovalID: "ap1", Kind: event.ApprovalCommand, Decision: event.DecisionApproved}},
		{"approve with the same command is not an edit", Answer{Approve: true, Command: "  rm -rf build "}, event.DecisionApproved, "", "",
			event.ApprovalResolved{ApprovalID: "ap1", Kind: event.ApprovalCommand, Decision: event.DecisionApproved}},
		{"approve an edited command", Answer{Approve: true, Command: "rm -rf build/tmp"}, event.DecisionApproved, "rm -rf build/tmp", "",
			event.ApprovalResolved{ApprovalID: "ap1", Kind: event.ApprovalCommand, Decision: event.DecisionApproved, Command: "rm -rf build/tmp"}},
		{"deny with a reason", Answer{Reason: " use make clean "}, event.DecisionDenied, "", "use make clean",
			event.ApprovalResolved{ApprovalID: "ap1", Kind: event.ApprovalCommand, Decision: event.DecisionDenied, Reason: "use make clean"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewManager(Options{NewID: counter()})
			rec := newRecorder()
			res := ask(context.Background(), m, rec, command("s1", "rm -rf build", safety.High))
			req := rec.next(t)
			if got := m.Pending("s1"); len(got) != 1 || got[0].ApprovalID != req.ApprovalID {
				t.Fatalf("Pending = %+v, want the request", got)
			}
			if err := m.Answer("s1", req.ApprovalID, tc.answer); err != nil {
				t.Fatal(err)
			}
			r := waitResult(t, res)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.d.Outcome != tc.outcome || r.d.Command != tc.command || r.d.Reason != tc.reason || r.d.Auto {
				t.Fatalf("decision = %+v", r.d)
			}
			evs := rec.all()
			if len(evs) != 2 {
				t.Fatalf("events = %+v, want requested and resolved", evs)
			}
			want := event.ApprovalRequested{ApprovalID: "ap1", ActionID: "a1", Kind: event.ApprovalCommand, Command: "rm -rf build", Cwd: ".", Severity: "high", Reason: "test", Mode: event.ApprovalModeAsk}
			if got := evs[0].(event.ApprovalRequested); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("requested = %+v, want %+v", got, want)
			}
			if got := evs[1].(event.ApprovalResolved); got != tc.resolved {
				t.Fatalf("resolved = %+v, want %+v", got, tc.resolved)
			}
			if len(m.Pending("s1")) != 0 {
				t.Fatal("request still pending after its answer")
			}
			if err := m.Answer("s1", req.ApprovalID, tc.answer); !errors.Is(err, ErrNotPending) {
				t.Fatalf("second answer: err = %v, want ErrNotPending", err)
			}
		})
	}
}

func TestPolicyAnswersAreRecorded(t *testing.T) {
	tests := []struct {
		name    string
		policy  Policy
		req     Request
		outcome string
		auto    bool
	}{
		{"auto-approved command", Policy{AutoApproveCommands: true}, command("s", "npm install", safety.Medium), event.DecisionApproved, true},
		{"auto-approved sensitive edit", Policy{AutoApproveSensitiveEdits: true},
			Request{Session: "s", Kind: event.ApprovalFileEdit, FilePath: ".env", Diff: "-A=1\n+A=2\n", Severity: safety.Medium}, event.DecisionApproved, true},
		{"unattended denial", Policy{Unattended: true}, command("s", "npm install", safety.Medium), event.DecisionDenied, false},
		{"unattended --yes approves high", Policy{Unattended: true, Yes: true}, command("s", "sudo ls", safety.High), event.DecisionApproved, true},
		{"unattended --yes denies critical", Policy{Unattended: true, Yes: true}, command("s", "rm -rf /", safety.Critical), event.DecisionDenied, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewManager(Options{NewID: counter()})
			m.SetPolicy("s", tc.policy)
			rec := newRecorder()
			d, err := m.Request(context.Background(), rec.emit, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if d.Outcome != tc.outcome || !d.Auto {
				t.Fatalf("decision = %+v, want %s by the policy", d, tc.outcome)
			}
			if tc.outcome == event.DecisionDenied && d.Reason == "" {
				t.Fatal("a policy denial must say why")
			}
			evs := rec.all()
			if len(evs) != 2 || evs[0].EventType() != event.TypeApprovalRequested {
				t.Fatalf("events = %+v", evs)
			}
			res := evs[1].(event.ApprovalResolved)
			if res.Decision != tc.outcome || res.AutoApproved != tc.auto || res.ApprovalID != "ap1" {
				t.Fatalf("resolved = %+v", res)
			}
		})
	}
}

func TestCriticalAsksUnderAutoApprove(t *testing.T) {
	m := NewManager(Options{Default: Policy{AutoApproveCommands: true, AutoApproveSensitiveEdits: true}})
	rec := newRecorder()
	res := ask(context.Background(), m, rec, command("s", "rm -rf ~", safety.Critical))
	req := rec.next(t)
	if req.Severity != "critical" {
		t.Fatalf("severity = %q", req.Severity)
	}
	select {
	case r := <-res:
		t.Fatalf("critical request settled without an answer: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	if err := m.Answer("s", req.ApprovalID, Answer{}); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, res); r.d.Outcome != event.DecisionDenied || r.d.Auto {
		t.Fatalf("decision = %+v", r.d)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	m := NewManager(Options{NewID: counter()})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	res := ask(ctx, m, rec, command("s", "make deploy", safety.Medium))
	req := rec.next(t)
	cancel()
	r := waitResult(t, res)
	if r.err != nil || r.d.Outcome != event.DecisionCanceled || r.d.ApprovalID != req.ApprovalID {
		t.Fatalf("result = %+v, %v", r.d, r.err)
	}
	evs := rec.all()
	if len(evs) != 2 {
		t.Fatalf("events = %+v", evs)
	}
	if got := evs[1].(event.ApprovalResolved); got.Decision != event.DecisionCanceled || got.ApprovalID != req.ApprovalID {
		t.Fatalf("resolved = %+v, want canceled (recorded although ctx is done)", got)
	}
	if err := m.Answer("s", req.ApprovalID, Answer{Approve: true}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("answer after cancel: %v", err)
	}
}

func TestCanceledContextAsksNothing(t *testing.T) {
	m := NewManager(Options{})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, err := m.Request(ctx, rec.emit, command("s", "ls", safety.None))
	if err != nil || d.Outcome != event.DecisionCanceled {
		t.Fatalf("decision = %+v, %v", d, err)
	}
	if len(rec.all()) != 0 {
		t.Fatal("events emitted for a request that was never made")
	}
}

func TestCancelSessionSettlesOnlyThatSession(t *testing.T) {
	m := NewManager(Options{NewID: counter()})
	rec := newRecorder()
	ctx := context.Background()
	a1 := ask(ctx, m, rec, command("a", "make one", safety.Medium))
	rec.next(t)
	a2 := ask(ctx, m, rec, command("a", "make two", safety.Medium))
	rec.next(t)
	b := ask(ctx, m, rec, command("b", "make three", safety.Medium))
	breq := rec.next(t)

	pa := m.Pending("a")
	if len(pa) != 2 || pa[0].Command != "make one" || pa[1].Command != "make two" {
		t.Fatalf("Pending(a) = %+v, want both in order", pa)
	}
	if n := m.CancelSession("a"); n != 2 {
		t.Fatalf("CancelSession = %d, want 2", n)
	}
	for _, c := range []<-chan result{a1, a2} {
		if r := waitResult(t, c); r.d.Outcome != event.DecisionCanceled {
			t.Fatalf("a: %+v", r.d)
		}
	}
	if len(m.Pending("b")) != 1 {
		t.Fatal("session b's request was canceled too")
	}
	if err := m.Answer("a", breq.ApprovalID, Answer{Approve: true}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("answering b's request as session a: %v", err)
	}
	if err := m.Answer("b", breq.ApprovalID, Answer{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, b); !r.d.Approved() {
		t.Fatalf("b: %+v", r.d)
	}
	if n := m.CancelSession("a"); n != 0 {
		t.Fatalf("second CancelSession = %d", n)
	}
}

func TestEditOnlyForCommands(t *testing.T) {
	m := NewManager(Options{})
	rec := newRecorder()
	res := ask(context.Background(), m, rec, Request{Session: "s", Kind: event.ApprovalFileEdit, FilePath: "go.mod", Diff: "x", Severity: safety.Medium})
	req := rec.next(t)
	if err := m.Answer("s", req.ApprovalID, Answer{Approve: true, Command: "echo hi"}); err == nil {
		t.Fatal("an edited command on a file edit was accepted")
	}
	if len(m.Pending("s")) != 1 {
		t.Fatal("a refused answer settled the request")
	}
	if err := m.Answer("s", req.ApprovalID, Answer{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, res); !r.d.Approved() || r.d.Command != "" {
		t.Fatalf("%+v", r.d)
	}
}

func TestRecordFailure(t *testing.T) {
	m := NewManager(Options{})
	rec := newRecorder()
	rec.failOn = event.TypeApprovalRequested
	_, err := m.Request(context.Background(), rec.emit, command("s", "make", safety.Medium))
	if err == nil {
		t.Fatal("a request that could not be recorded went ahead")
	}
	if len(m.Pending("s")) != 0 {
		t.Fatal("an unrecorded request is pending")
	}
}

func TestMalformedRequests(t *testing.T) {
	tests := []struct {
		name string
		req  Request
	}{
		{"unknown kind", Request{Kind: "nuke", Command: "x"}},
		{"command without command", Request{Kind: event.ApprovalCommand}},
		{"edit without path", Request{Kind: event.ApprovalFileEdit}},
		{"bad severity", Request{Kind: event.ApprovalCommand, Command: "x", Severity: 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewManager(Options{}).Request(context.Background(), nil, tc.req); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestManyPendingAtOnce(t *testing.T) {
	m := NewManager(Options{})
	rec := newRecorder()
	const n = 40
	results := make([]<-chan result, n)
	for i := range n {
		results[i] = ask(context.Background(), m, rec, command(fmt.Sprintf("s%d", i%4), fmt.Sprintf("make t%d", i), safety.Medium))
	}
	var reqs []event.ApprovalRequested
	for range n {
		reqs = append(reqs, rec.next(t))
	}
	var wg sync.WaitGroup
	for i, req := range reqs {
		session := ""
		for s := range 4 {
			for _, p := range m.Pending(fmt.Sprintf("s%d", s)) {
				if p.ApprovalID == req.ApprovalID {
					session = fmt.Sprintf("s%d", s)
				}
			}
		}
		wg.Go(func() {
			if err := m.Answer(session, req.ApprovalID, Answer{Approve: i%2 == 0}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	approved := 0
	for _, c := range results {
		if waitResult(t, c).d.Approved() {
			approved++
		}
	}
	if approved != n/2 {
		t.Fatalf("approved %d of %d, want %d", approved, n, n/2)
	}
}

func TestSessionPolicies(t *testing.T) {
	m := NewManager(Options{Default: Policy{Unattended: true}})
	if !m.Policy("x").Unattended {
		t.Fatal("default policy not applied")
	}
	m.SetPolicy("x", Policy{AutoApproveCommands: true})
	if p := m.Policy("x"); p.Unattended || !p.AutoApproveCommands {
		t.Fatalf("policy = %+v", p)
	}
	m.ForgetSession("x")
	if !m.Policy("x").Unattended {
		t.Fatal("ForgetSession kept the policy")
	}
}
