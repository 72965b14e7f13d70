package rpc

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

func TestForkCutsBeforeAPromptIntoANewSession(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	for i, text := range []string{"first prompt", "second prompt"} {
		id := `"p` + string(rune('0'+i)) + `"`
		c.call(id, `{"id":`+id+`,"type":"prompt","streamingBehavior":"followUp","message":"`+text+`"}`) // followUp: the first turn may still be ending
		c.next("turn_finished", func(f frame) bool { return f.Type == string(event.TypeTurnFinished) })
	}
	fm := c.call(`"fm"`, `{"id":"fm","type":"get_fork_messages"}`)
	var msgs rpcproto.ForkMessages
	if err := json.Unmarshal(fm.Data, &msgs); err != nil || len(msgs.Messages) != 2 || msgs.Messages[1].Text != "second prompt" {
		t.Fatalf("get_fork_messages: %s", fm.raw)
	}

	f := c.call(`"f"`, `{"id":"f","type":"fork","entryId":"`+msgs.Messages[1].EntryID+`"}`)
	var res rpcproto.ForkResult
	if err := json.Unmarshal(f.Data, &res); err != nil || !f.Success {
		t.Fatalf("fork: %s", f.raw)
	}
	if res.Text != "second prompt" || res.Cancelled || res.SessionID == b.sess.ID || res.ParentSessionID != b.sess.ID {
		t.Fatalf("fork result %+v", res)
	}
	// The new session is current and holds the first exchange only.
	after := c.call(`"fm2"`, `{"id":"fm2","type":"get_fork_messages"}`)
	if err := json.Unmarshal(after.Data, &msgs); err != nil || len(msgs.Messages) != 1 || msgs.Messages[0].Text != "first prompt" {
		t.Fatalf("fork's prompts: %s", after.raw)
	}
	if st := c.call(`"s"`, `{"id":"s","type":"get_state"}`); !strings.Contains(string(st.Data), `"sessionId":"`+res.SessionID+`"`) {
		t.Errorf("state after fork: %s", st.Data)
	}
	// The original keeps both prompts.
	orig, err := b.svc.BranchPrompts(t.Context(), b.sess.ID)
	if err != nil || len(orig) != 2 {
		t.Errorf("original after fork: %v %v", orig, err)
	}

	// Before the first prompt: an empty session with the prompt's text.
	first := c.call(`"f0"`, `{"id":"f0","type":"fork","entryId":"`+msgs.Messages[0].EntryID+`"}`)
	var empty rpcproto.ForkResult
	if err := json.Unmarshal(first.Data, &empty); err != nil || !first.Success || empty.Text != "first prompt" || empty.SessionID == res.SessionID {
		t.Fatalf("fork before the first prompt: %s", first.raw)
	}
	// It records where it came from, like any fork.
	row, err := b.svc.Open(t.Context(), empty.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if row.ParentSessionID != res.SessionID || empty.ParentSessionID != res.SessionID {
		t.Errorf("fork before the first prompt: parent %q (result %q), want %s", row.ParentSessionID, empty.ParentSessionID, res.SessionID)
	}
	if fm := c.call(`"fm3"`, `{"id":"fm3","type":"get_fork_messages"}`); string(fm.Data) != `{"messages":[]}` {
		t.Errorf("empty fork's prompts: %s", fm.Data)
	}

	for _, bad := range []string{`{"id":"x","type":"fork"}`, `{"id":"x","type":"fork","entryId":"zz"}`, `{"id":"x","type":"fork","entryId":"999"}`} {
		if r := c.call(`"x"`, bad); r.Success || r.Error == "" {
			t.Errorf("%s: %s", bad, r.raw)
		}
	}
}

func TestOnSessionFollowsEveryMove(t *testing.T) {
	b := newBackend(t, quickRunner{})
	var mu sync.Mutex
	var moves []string
	c := serve(t, b, func(o *Options) {
		o.OnSession = func(id string) { mu.Lock(); moves = append(moves, id); mu.Unlock() }
	})
	got := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(moves) }
	if m := got(); len(m) != 0 {
		t.Fatalf("OnSession called for the first session: %q", m)
	}
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"first prompt"}`)
	c.next("turn_finished", func(f frame) bool { return f.Type == string(event.TypeTurnFinished) })
	if err := b.svc.WaitIdle(t.Context(), b.sess.ID); err != nil { // the turn winds down after turn_finished
		t.Fatal(err)
	}
	fm := c.call(`"fm"`, `{"id":"fm","type":"get_fork_messages"}`)
	var msgs rpcproto.ForkMessages
	if err := json.Unmarshal(fm.Data, &msgs); err != nil || len(msgs.Messages) != 1 {
		t.Fatalf("get_fork_messages: %s", fm.raw)
	}
	var want []string
	expect := func(what string, r frame, field string) {
		t.Helper()
		var d map[string]any
		if err := json.Unmarshal(r.Data, &d); err != nil || !r.Success {
			t.Fatalf("%s: %s", what, r.raw)
		}
		id := b.sess.ID
		if field != "" {
			id, _ = d[field].(string)
		}
		want = append(want, id)
		// Called before the response is written: already there.
		if m := got(); !slices.Equal(m, want) {
			t.Fatalf("after %s OnSession saw %q, want %q", what, m, want)
		}
	}
	expect("branch", c.call(`"b"`, `{"id":"b","type":"branch","entryId":"`+msgs.Messages[0].EntryID+`"}`), "")
	expect("fork", c.call(`"f"`, `{"id":"f","type":"fork","entryId":"`+msgs.Messages[0].EntryID+`"}`), "sessionId")
	expect("new_session", c.call(`"n"`, `{"id":"n","type":"new_session"}`), "sessionId")
	sw := c.call(`"s"`, `{"id":"s","type":"switch_session","sessionPath":"`+b.sess.ID+`"}`)
	expect("switch_session", sw, "")

	// A typed /new moves once the prompt has run, after its response.
	c.call(`"nw"`, `{"id":"nw","type":"prompt","message":"/new"}`)
	deadline := time.Now().Add(5 * time.Second)
	for len(got()) == len(want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	m := got()
	if len(m) != len(want)+1 || m[len(m)-1] == b.sess.ID {
		t.Fatalf("after /new OnSession saw %q, want one more, new, session after %q", m, want)
	}
	if st := c.call(`"st"`, `{"id":"st","type":"get_state"}`); !strings.Contains(string(st.Data), `"sessionId":"`+m[len(m)-1]+`"`) {
		t.Errorf("OnSession said %s, the state says %s", m[len(m)-1], st.Data)
	}
}
