package wiretest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// Dialect is what the shared test bodies need to know about one client.
// Each client's tests keep their own cases, since the messages, paths and
// fields of the two dialects differ; what a case checks is the same.
type Dialect struct {
	// Name is the dialect as errors report it ("ollama", "openai").
	Name string
	// ChatPath is where chat requests go ("/api/chat").
	ChatPath string
	// NewClient builds a client for srv whose retries record their waits
	// (see NewClient).
	NewClient func(t testing.TB, srv *llmtest.Server) (llm.Provider, *llmtest.Sleeps)
	// NewClientTimeouts is NewClient with the given timeouts.
	NewClientTimeouts func(t testing.TB, srv *llmtest.Server, to llm.Timeouts) (llm.Provider, *llmtest.Sleeps)
}

// NewDialect describes a client by its dialect name, chat path, New,
// WithRetry and WithTimeouts.
func NewDialect[C llm.Provider, O any](name, chatPath string, newClient func(string, ...O) (C, error), withRetry func(llm.RetryPolicy) O, withTimeouts func(llm.Timeouts) O) Dialect {
	return Dialect{Name: name, ChatPath: chatPath,
		NewClient: func(t testing.TB, srv *llmtest.Server) (llm.Provider, *llmtest.Sleeps) {
			return NewClient(t, srv, newClient, withRetry)
		},
		NewClientTimeouts: func(t testing.TB, srv *llmtest.Server, to llm.Timeouts) (llm.Provider, *llmtest.Sleeps) {
			return NewClient(t, srv, newClient, withRetry, withTimeouts(to))
		}}
}

// Timeouts checks the two ways a server stalls. One that sends no
// headers is given up after Timeouts.Response, retried by the policy, and
// then reported as KindTimeout saying how long nothing came; one that
// sends a chunk and then nothing fails Recv after Timeouts.Idle, without a
// retry (half the answer was delivered).
func Timeouts(t *testing.T, d Dialect) {
	// The timeouts are short: the test waits for them to pass. (That a
	// stream whose pieces keep coming is read past the idle timeout is
	// wire's TestIdleBodyTimesOutOnlyOnSilence, on a fake clock: through
	// a real server it timed out 4 of 10 -race runs at load 9, whose
	// stalls stretched 20 ms gaps past 250 ms, and 5 of 10 with 250 ms
	// gaps against 1 s.)
	to := llm.Timeouts{Response: 250 * time.Millisecond, Idle: 250 * time.Millisecond}
	t.Run("no headers", func(t *testing.T) {
		srv := NewServer(t)
		srv.Enqueue(llmtest.Hang(), llmtest.Hang(), llmtest.Hang(), llmtest.Hang())
		c, sleeps := d.NewClientTimeouts(t, srv, to)
		var err error
		Within(t, "Chat", func() { _, err = c.Chat(context.Background(), ChatReq(Model)) })
		e := AsError(t, err, llm.KindTimeout)
		var te *llm.TimeoutError
		if !errors.As(err, &te) || !te.Headers || !strings.Contains(err.Error(), "sent nothing for 0 s (timeouts.response)") || e.StatusCode != 0 {
			t.Errorf("error %v", err)
		}
		// Four attempts (three waits). An attempt the client gives up on
		// before the server has read its request leaves its hang queued:
		// on a loaded machine (load 8, -race) one of the four did not get
		// that far within the 250 ms; at least one must have.
		if len(sleeps.Waits()) != 3 || srv.Pending() > 3 {
			t.Errorf("retries %v, pending %d", sleeps.Waits(), srv.Pending())
		}
		if !errors.Is(err, llm.ErrTimeout) || strings.Contains(err.Error(), "cannot reach") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("idle stream", func(t *testing.T) {
		srv := NewServer(t)
		srv.Enqueue(llmtest.Reply(llmtest.Text("partial"), llmtest.Stall()))
		// The headers come at once, but not always within 250 ms on a
		// loaded machine: that attempt timed out, and the retry found
		// no reply queued ("failed", 1 of 10 -race runs at load 9).
		idle := llm.Timeouts{Response: 10 * time.Second, Idle: to.Idle}
		c, sleeps := d.NewClientTimeouts(t, srv, idle)
		s, err := c.Chat(context.Background(), ChatReq(Model))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if ch, err := s.Recv(); err != nil || ch.Content != "partial" {
			t.Fatalf("first chunk %+v, %v", ch, err)
		}
		Within(t, "Recv", func() { _, err = s.Recv() })
		AsError(t, err, llm.KindTimeout)
		if !strings.Contains(err.Error(), "sent nothing more for 0 s (timeouts.idle)") || len(sleeps.Waits()) != 0 {
			t.Errorf("error %v, retries %v", err, sleeps.Waits())
		}
		WaitReleased(t, srv, "the stalled response was not released")
	})
}

// CancelWhileWaiting cancels a chat whose server never answers: Chat
// returns a cancellation promptly, nothing is retried, and the server sees
// the client go away.
func CancelWhileWaiting(t *testing.T, d Dialect) {
	srv := NewServer(t)
	srv.Enqueue(llmtest.Hang())
	c, sleeps := d.NewClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		WaitUntil(t, "the request to arrive", func() bool { return len(srv.Requests()) == 1 })
		cancel()
	}()
	var err error
	Within(t, "Chat", func() { _, err = c.Chat(ctx, ChatReq(Model)) })
	AsError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
	if len(sleeps.Waits()) != 0 {
		t.Errorf("a canceled request was retried: %v", sleeps.Waits())
	}
	WaitReleased(t, srv, "the server never saw the client go away")
}

// CancelMidStream cancels a chat after its first chunk, while the server
// stalls: Recv returns a cancellation promptly and the connection is
// released.
func CancelMidStream(t *testing.T, d Dialect) {
	srv := NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("partial"), llmtest.Stall()))
	c, _ := d.NewClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Chat(ctx, ChatReq(Model))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ch, err := s.Recv(); err != nil || ch.Content != "partial" {
		t.Fatalf("first chunk %+v, %v", ch, err)
	}
	go cancel() // Recv is (about to be) blocked on the stalled stream
	Within(t, "Recv after cancel", func() { _, err = s.Recv() })
	AsError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, llm.ErrCanceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
	WaitReleased(t, srv, "the connection was not released")
}

// WaitReleased fails the test with failure unless srv sees the client of
// one hung or stalled response go away within 10 s.
func WaitReleased(t testing.TB, srv *llmtest.Server, failure string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitCanceled(ctx, 1); err != nil {
		t.Errorf("%s: %v", failure, err)
	}
}

// StatusCase is a chat whose server answers with Script (or fails on its
// own, for an unknown Model), and what the client must make of it.
type StatusCase struct {
	Name   string
	Script []llmtest.Response
	// Model is the requested model; empty means the installed one.
	Model string
	// Tools sends a tool definition with the request.
	Tools bool
	// Kind is the error expected; KindUnknown means success.
	Kind   llm.ErrorKind
	Status int
	// Waits are the retry waits expected, Requests the requests the server
	// gets in all.
	Waits    []time.Duration
	Requests int
	// MsgSubstr must be in the error's text.
	MsgSubstr string
}

// StatusErrors runs status cases: each error has the fields that name
// the request, the server and the model, keeps the server's message, and
// only connection failures and 5xx are retried, with the policy's waits.
// The cases that retry and then succeed are the same for every dialect and
// run first; cases holds the dialect's own. srv is set up with a second
// model, gemma:2b, which has no tools.
func StatusErrors(t *testing.T, d Dialect, cases []StatusCase) {
	s := time.Second
	retried := []StatusCase{
		{Name: "500 then success waits 1s once", Script: []llmtest.Response{llmtest.Status(500, "boom"), llmtest.Reply(llmtest.Text("ok"))},
			Waits: []time.Duration{s}, Requests: 2},
		{Name: "connection dropped before any response is retried", Script: []llmtest.Response{llmtest.Disconnect(), llmtest.Reply(llmtest.Text("ok"))},
			Waits: []time.Duration{s}, Requests: 2},
	}
	for _, tc := range append(retried, cases...) {
		t.Run(tc.Name, func(t *testing.T) {
			srv := NewServer(t)
			srv.AddModel("gemma:2b", llmtest.Caps("completion"))
			srv.Enqueue(tc.Script...)
			c, sleeps := d.NewClient(t, srv)
			m := tc.Model
			if m == "" {
				m = Model
			}
			req := ChatReq(m)
			if tc.Tools {
				req.Tools = []llm.Tool{{Name: "read_file"}}
			}
			stream, err := c.Chat(context.Background(), req)
			if err == nil {
				_, err = Drain(t, stream)
			}
			if tc.Kind == llm.KindUnknown {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				checkStatusError(t, err, tc, llm.Error{Kind: tc.Kind, Op: "POST " + d.ChatPath, BaseURL: srv.URL(), Model: m, StatusCode: tc.Status, Dialect: d.Name})
			}
			if d := cmp.Diff(tc.Waits, sleeps.Waits()); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if n := len(srv.Requests()); n != tc.Requests {
				t.Errorf("server got %d requests, want %d", n, tc.Requests)
			}
		})
	}
}

func checkStatusError(t *testing.T, err error, tc StatusCase, want llm.Error) {
	t.Helper()
	e := AsError(t, err, tc.Kind)
	got := llm.Error{Kind: e.Kind, Op: e.Op, BaseURL: e.BaseURL, Model: e.Model, StatusCode: e.StatusCode, Dialect: e.Dialect}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("error fields (-want +got):\n%s", d)
	}
	if !strings.Contains(err.Error(), tc.MsgSubstr) {
		t.Errorf("message %q does not contain %q", err, tc.MsgSubstr)
	}
	if e.Message == "" {
		t.Error("server message not kept")
	}
}

// FailureCase is a stream that breaks after its first chunk with Parts.
type FailureCase struct {
	Name  string
	Parts []llmtest.Part
	Kind  llm.ErrorKind
	// Line is the quoted line the error must carry ("" for none).
	Line string
	// InError are substrings of the error's text; NotInError must not be.
	InError    []string
	NotInError []string
	// Cause, when set, must be in the error's chain.
	Cause error
}

// StreamFailures runs failure cases: the failure ends the stream with an
// error of the case's kind, later Recv calls return the same error, and a
// stream that broke half-way is never retried.
func StreamFailures(t *testing.T, d Dialect, cases []FailureCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(llmtest.Reply(append([]llmtest.Part{llmtest.Text("first")}, tc.Parts...)...))
			srv.Enqueue(llmtest.Reply(llmtest.Text("a retry must not happen")))
			c, sleeps := d.NewClient(t, srv)
			s, err := c.Chat(context.Background(), ChatReq(Model))
			if err != nil {
				t.Fatal(err)
			}
			if ch, err := s.Recv(); err != nil || ch.Content != "first" {
				t.Fatalf("first chunk %+v, %v", ch, err)
			}
			_, err = s.Recv()
			checkFailure(t, err, tc)
			if _, again := s.Recv(); again != err {
				t.Errorf("Recv after the failure returned %v, want the same error", again)
			}
			if len(sleeps.Waits()) != 0 || srv.Pending() != 1 {
				t.Errorf("a half-read stream was retried: waits %v, pending %d", sleeps.Waits(), srv.Pending())
			}
		})
	}
}

func checkFailure(t *testing.T, err error, tc FailureCase) {
	t.Helper()
	e := AsError(t, err, tc.Kind)
	if e.Line != tc.Line {
		t.Errorf("Line = %q, want %q", e.Line, tc.Line)
	}
	for _, sub := range tc.InError {
		if !strings.Contains(err.Error(), sub) {
			t.Errorf("error %q does not contain %q", err, sub)
		}
	}
	for _, sub := range tc.NotInError {
		if strings.Contains(err.Error(), sub) {
			t.Errorf("error %q contains %q", err, sub)
		}
	}
	if tc.Cause != nil && !errors.Is(err, tc.Cause) {
		t.Errorf("%v does not wrap %v", err, tc.Cause)
	}
}

// FieldCase is a chat request's think, keep-alive and format settings and
// the top-level fields they must put on the wire.
type FieldCase struct {
	Name      string
	Think     *llm.Think
	KeepAlive string
	Format    string
	// Want maps a field to its raw JSON; "" means the field is absent.
	Want map[string]string
}

// RequestFields runs field cases, each against a fresh server.
func RequestFields(t *testing.T, d Dialect, cases []FieldCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(llmtest.Reply(llmtest.Text("ok")))
			c, _ := d.NewClient(t, srv)
			req := ChatReq(Model)
			req.Think, req.KeepAlive = tc.Think, tc.KeepAlive
			if tc.Format != "" {
				req.Format = json.RawMessage(tc.Format)
			}
			Chat(t, c, req)
			got := srv.LastRequest(d.ChatPath).Fields
			for field, want := range tc.Want {
				if string(got[field]) != want {
					t.Errorf("%s = %s, want %s", field, got[field], want)
				}
			}
		})
	}
}
