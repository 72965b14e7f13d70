package rpc

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

func TestReadyFrameFirst(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	f := c.next("ready", func(frame) bool { return true })
	var r rpcproto.Ready
	if err := json.Unmarshal(f.raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Type != rpcproto.TypeReady || r.ProtocolVersion != 1 || r.SessionID != b.sess.ID || r.Workspace != b.sess.Workspace || r.Model != "m" || r.Version != "test" {
		t.Errorf("ready %+v", r)
	}
	if len(r.Commands) != len(commandList()) {
		t.Errorf("ready lists %d commands, the table has %d", len(r.Commands), len(commandList()))
	}
}

func TestBadInputGetsErrorsAndServerKeepsReading(t *testing.T) {
	tests := []struct {
		name, line string
		id         string // the id the error response carries ("" none)
		command    string
		want       string
	}{
		{"not json", `{"type": get_state}`, "", "parse", "invalid JSON"},
		{"array", `[1,2]`, "", "parse", "not a JSON object"},
		{"null", `null`, "", "parse", "not a JSON object"},
		{"bare string", `"get_state"`, "", "parse", "not a JSON object"},
		{"missing type", `{"id":"a1"}`, `"a1"`, "parse", "missing field type"},
		{"type not a string", `{"id":"a2","type":7}`, `"a2"`, "parse", "field type: expected a string"},
		{"id of the wrong type", `{"id":{"x":1},"type":"get_state"}`, "", "parse", "field id: expected a string or a number"},
		{"unknown command", `{"id":"a3","type":"teleport"}`, `"a3"`, "teleport", `unknown command "teleport"`},
		{"numeric id echoed", `{"id":42,"type":"teleport"}`, `42`, "teleport", "unknown command"},
		{"ill-typed field", `{"id":"a4","type":"prompt","message":["hi"]}`, `"a4"`, "prompt", "field message: expected a string, got array"},
		{"missing required field", `{"id":"a5","type":"approve"}`, `"a5"`, "approve", "missing field approvalId"},
		{"blank required field", `{"id":"a6","type":"prompt","message":"   "}`, `"a6"`, "prompt", "missing field message"},
		{"bad enum", `{"id":"a7","type":"prompt","message":"x","streamingBehavior":"later"}`, `"a7"`, "prompt", "not steer or followUp"},
		{"empty image refused", `{"id":"a8","type":"steer","message":"x","images":[{"type":"image"}]}`, `"a8"`, "steer", "the image is empty"},
		{"image not base64", `{"id":"c1","type":"prompt","message":"x","images":[{"type":"image","data":"!!","mimeType":"image/png"}]}`, `"c1"`, "prompt", "images[0].data: not base64"},
		{"image of another type", `{"id":"c2","type":"prompt","message":"x","images":[{"type":"text","data":""}]}`, `"c2"`, "prompt", `images[0].type: "text" is not "image"`},
		{"image that is text", `{"id":"c3","type":"prompt","message":"x","images":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]}`, `"c3"`, "prompt", "not a PNG, JPEG, GIF or WebP image"},
		{"not pending", `{"id":"a9","type":"approve","approvalId":"ap_nope"}`, `"a9"`, "approve", "no such pending request"},
		{"line over the cap", `{"id":"b1","type":"prompt","message":"` + strings.Repeat("x", 5000) + `"}`, "", "parse", "line longer than 4096 bytes"},
	}
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.send(tt.line)
			f := c.next("the error", func(f frame) bool { return f.Type == rpcproto.TypeResponse })
			if f.Success || !strings.Contains(f.Error, tt.want) || f.Command != tt.command || string(f.ID) != tt.id {
				t.Errorf("response %s; want command %s, id %s and an error containing %q", f.raw, tt.command, tt.id, tt.want)
			}
			// Still answering.
			probe := `"probe` + string(rune('a'+i)) + `"`
			if r := c.call(probe, `{"type":"get_state","id":`+probe+`}`); !r.Success {
				t.Errorf("get_state after bad input: %s", r.raw)
			}
		})
	}
	c.t = t
	// A blank line is no command and gets no answer; the next one does.
	c.send("")
	if r := c.call(`"after-blank"`, `{"type":"get_commands","id":"after-blank"}`); !r.Success {
		t.Errorf("after a blank line: %s", r.raw)
	}
}

func TestUnavailableCapabilities(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	for _, cmd := range []string{
		`{"type":"bash","command":"ls"}`, `{"type":"export_html"}`, `{"type":"set_auto_compaction","enabled":true}`,
		`{"type":"list_changes"}`, `{"type":"keep","all":true}`, `{"type":"set_auto_approve","commands":true}`,
		`{"type":"get_available_models"}`, `{"type":"set_model","modelId":"x"}`,
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(cmd), &m)
		id := `"` + m["type"].(string) + `"`
		r := c.call(id, strings.Replace(cmd, "{", `{"id":`+id+`,`, 1))
		if r.Success || !strings.Contains(r.Error, "not available in this build") {
			t.Errorf("%s: %s", cmd, r.raw)
		}
	}
}

func TestPromptRunsAndStreams(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, func(o *Options) { o.Events = rpcproto.FamilyBoth })
	c.next("ready", func(f frame) bool { return f.Type == rpcproto.TypeReady })
	r := c.call(`"p1"`, `{"id":"p1","type":"prompt","message":"hello"}`)
	var res rpcproto.PromptResult
	if err := json.Unmarshal(r.Data, &res); err != nil || !r.Success || res.Queued != "" || res.SessionID != b.sess.ID {
		t.Fatalf("prompt: %s", r.raw)
	}
	// olly's events and pi's, in order, after the response.
	var got []string
	c.next("agent_end", func(f frame) bool {
		got = append(got, f.Type)
		return f.Type == rpcproto.PiAgentEnd
	})
	want := []string{"turn_started", "agent_start", "user_message", "message_start", "message_end", "title_changed",
		"text_delta", "turn_start", "message_start", "message_update", "message_update", // text_start, text_delta
		"assistant_message",                                                // a final answer: its text waits for the final_message
		"final_message", "message_update", "message_update", "message_end", // text_end, done
		"turn_finished", "turn_end", "agent_end"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("frames\n got %v\nwant %v", got, want)
	}
	r = c.call(`"t"`, `{"id":"t","type":"get_last_assistant_text"}`)
	if string(r.Data) != `{"text":"Done"}` {
		t.Errorf("last text %s", r.Data)
	}
}

func TestPromptRefusedAfterAcceptanceGetsSecondResponse(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	first := c.call(`"p"`, `{"id":"p","type":"prompt","message":"look at @refuse"}`)
	if !first.Success {
		t.Fatalf("first response %s", first.raw)
	}
	second := c.response(`"p"`)
	if second.Success || second.Command != "prompt" || !strings.Contains(second.Error, "accepted but did not run") {
		t.Errorf("second response %s", second.raw)
	}
	if b.svc.Busy(b.sess.ID) {
		t.Error("the session is still held")
	}
}

func TestEndOfInputSettlesApprovalsAndStops(t *testing.T) {
	r := &approvalRunner{}
	b := newBackend(t, r)
	r.approvals = b.approvals
	c := serve(t, b, nil)
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"go"}`)
	c.next("approval_requested", func(f frame) bool { return f.Type == string(event.TypeApprovalRequested) })
	c.close()
	evs, err := b.svc.History(context.Background(), b.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var decision, status string
	for _, ev := range evs {
		switch p := ev.Data.(type) {
		case event.ApprovalResolved:
			decision = p.Decision
		case event.TurnFinished:
			status = p.Status
		}
	}
	if decision != event.DecisionCanceled || status != event.FinishCanceled {
		t.Errorf("after EOF: approval %q, turn %q; want both canceled", decision, status)
	}
	if len(b.approvals.Pending(b.sess.ID)) != 0 {
		t.Error("approvals still pending")
	}
}

func TestCanceledContextStopsServer(t *testing.T) {
	r := &approvalRunner{}
	b := newBackend(t, r)
	r.approvals = b.approvals
	c := serve(t, b, nil)
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"go"}`)
	c.next("approval_requested", func(f frame) bool { return f.Type == string(event.TypeApprovalRequested) })
	c.cancel() // what SIGTERM does
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatal(err)
		}
		c.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	// The turn's end was still written before the output closed.
	c.next("turn_finished", func(f frame) bool { return f.Type == string(event.TypeTurnFinished) })
}

func TestApproveAndDenyAnswerPendingRequests(t *testing.T) {
	r := &approvalRunner{}
	b := newBackend(t, r)
	r.approvals = b.approvals
	c := serve(t, b, nil)
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"go"}`)
	f := c.next("approval_requested", func(f frame) bool { return f.Type == string(event.TypeApprovalRequested) })
	var ev event.Event
	if err := json.Unmarshal(f.raw, &ev); err != nil {
		t.Fatal(err)
	}
	ap := ev.Data.(event.ApprovalRequested)
	st := c.call(`"s"`, `{"id":"s","type":"get_state"}`)
	if !strings.Contains(string(st.Data), ap.ApprovalID) || !strings.Contains(string(st.Data), `"isStreaming":true`) {
		t.Errorf("state lacks the pending approval: %s", st.Data)
	}
	d := c.call(`"d"`, `{"id":"d","type":"deny","approvalId":"`+ap.ApprovalID+`","reason":"no"}`)
	if !d.Success || string(d.Data) != `{"approvalId":"`+ap.ApprovalID+`","decision":"denied"}` {
		t.Errorf("deny: %s", d.raw)
	}
	res := c.next("approval_resolved", func(f frame) bool { return f.Type == string(event.TypeApprovalResolved) })
	if !strings.Contains(string(res.raw), `"decision":"denied"`) || !strings.Contains(string(res.raw), `"reason":"no"`) {
		t.Errorf("resolved %s", res.raw)
	}
}

func TestQueueWhileBusy(t *testing.T) {
	r := &approvalRunner{}
	b := newBackend(t, r)
	r.approvals = b.approvals
	c := serve(t, b, nil)
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"first"}`)
	c.next("approval_requested", func(f frame) bool { return f.Type == string(event.TypeApprovalRequested) })
	busy := c.call(`"b"`, `{"id":"b","type":"prompt","message":"second"}`)
	if busy.Success || !strings.Contains(busy.Error, "streamingBehavior") {
		t.Errorf("plain prompt while busy: %s", busy.raw)
	}
	q := c.call(`"q"`, `{"id":"q","type":"prompt","message":"second","streamingBehavior":"followUp"}`)
	if !q.Success || !strings.Contains(string(q.Data), `"queued":"followUp"`) {
		t.Errorf("queued prompt: %s", q.raw)
	}
	sw := c.call(`"n"`, `{"id":"n","type":"new_session"}`)
	if sw.Success || !strings.Contains(sw.Error, "working on a prompt") {
		t.Errorf("new_session while busy: %s", sw.raw)
	}
	a := c.call(`"a"`, `{"id":"a","type":"abort"}`)
	if string(a.Data) != `{"aborted":true,"dropped":1}` {
		t.Errorf("abort: %s", a.raw)
	}
	c.next("turn_finished", func(f frame) bool { return f.Type == string(event.TypeTurnFinished) })
}

func TestSessionCommands(t *testing.T) {
	b := newBackend(t, quickRunner{})
	var mu sync.Mutex
	var opened []string // what Options.Opened was told (the app starts those sessions' shells)
	c := serve(t, b, func(o *Options) {
		o.Opened = func(s *store.Session) { mu.Lock(); opened = append(opened, s.ID); mu.Unlock() }
	})
	c.call(`"p"`, `{"id":"p","type":"prompt","message":"first prompt"}`)
	c.next("turn_finished", func(f frame) bool { return f.Type == string(event.TypeTurnFinished) })

	name := c.call(`"n"`, `{"id":"n","type":"set_session_name","name":"My work"}`)
	if !name.Success || !strings.Contains(string(name.Data), `"name":"My work"`) {
		t.Errorf("set_session_name: %s", name.raw)
	}
	mode := c.call(`"m"`, `{"id":"m","type":"set_mode","mode":"plan"}`)
	if string(mode.Data) != `{"mode":"plan"}` {
		t.Errorf("set_mode: %s", mode.raw)
	}
	if bad := c.call(`"m2"`, `{"id":"m2","type":"set_mode","mode":"yolo"}`); bad.Success {
		t.Errorf("set_mode yolo: %s", bad.raw)
	}
	bm := c.call(`"bm"`, `{"id":"bm","type":"get_branch_messages"}`)
	var msgs rpcproto.BranchMessages
	if err := json.Unmarshal(bm.Data, &msgs); err != nil || len(msgs.Messages) != 1 || msgs.Messages[0].Text != "first prompt" {
		t.Fatalf("branch messages %s", bm.raw)
	}
	br := c.call(`"br"`, `{"id":"br","type":"branch","entryId":"`+msgs.Messages[0].EntryID+`"}`)
	if !br.Success || !strings.Contains(string(br.Data), `"text":"first prompt"`) {
		t.Errorf("branch: %s", br.raw)
	}
	stats := c.call(`"st"`, `{"id":"st","type":"get_session_stats"}`)
	if !stats.Success || !strings.Contains(string(stats.Data), `"sessionId":"`+b.sess.ID) {
		t.Errorf("stats: %s", stats.raw)
	}
	// The branch moved the leaf before the prompt: the branch is empty.
	if bm := c.call(`"bm2"`, `{"id":"bm2","type":"get_branch_messages"}`); string(bm.Data) != `{"messages":[]}` {
		t.Errorf("after branch: %s", bm.Data)
	}

	ns := c.call(`"ns"`, `{"id":"ns","type":"new_session"}`)
	var sw rpcproto.SwitchResult
	if err := json.Unmarshal(ns.Data, &sw); err != nil || sw.SessionID == "" || sw.SessionID == b.sess.ID {
		t.Fatalf("new_session: %s", ns.raw)
	}
	if st := c.call(`"s"`, `{"id":"s","type":"get_state"}`); !strings.Contains(string(st.Data), sw.SessionID) {
		t.Errorf("state after new_session: %s", st.Data)
	}
	back := c.call(`"sw"`, `{"id":"sw","type":"switch_session","sessionPath":"`+b.sess.ID+`"}`)
	if !back.Success || !strings.Contains(string(back.Data), b.sess.ID) {
		t.Errorf("switch_session: %s", back.raw)
	}
	mu.Lock()
	if want := []string{sw.SessionID, b.sess.ID}; !slices.Equal(opened, want) {
		t.Errorf("Opened was told %v, want %v (new_session, then switch_session)", opened, want)
	}
	mu.Unlock()
	list := c.call(`"ls"`, `{"id":"ls","type":"list_sessions"}`)
	var sessions rpcproto.SessionsResult
	if err := json.Unmarshal(list.Data, &sessions); err != nil || len(sessions.Sessions) != 2 {
		t.Errorf("list_sessions: %s", list.raw)
	}
	evs := c.call(`"ev"`, `{"id":"ev","type":"get_events","afterSeq":0,"limit":2}`)
	var page rpcproto.EventsResult
	if err := json.Unmarshal(evs.Data, &page); err != nil || len(page.Events) != 2 || !page.More || page.LastSeq != page.Events[1].Seq {
		t.Errorf("get_events: %s", evs.raw)
	}
	if bad := c.call(`"ev2"`, `{"id":"ev2","type":"get_events","afterSeq":-1}`); bad.Success {
		t.Errorf("negative afterSeq: %s", bad.raw)
	}
}

func TestLinesNeverInterleave(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, func(o *Options) { o.Events = rpcproto.FamilyBoth })
	var wg sync.WaitGroup
	const n = 40
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock() // one line at a time on the pipe; answers interleave with events
			defer mu.Unlock()
			if i%4 == 0 {
				c.send(`{"type":"prompt","message":"p","streamingBehavior":"followUp"}`)
				return
			}
			c.send(`{"type":"get_state"}`)
		}()
	}
	wg.Wait()
	c.send(`{"id":"end","type":"get_commands"}`)
	c.response(`"end"`) // next() fails the test on any line that is not one JSON object
}
