package rpc

import (
	"encoding/json"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

func TestSetSessionSettings(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	r := c.call(`"s1"`, `{"id":"s1","type":"set_session_settings","explorerModel":"small:1b","sensitiveFilePatterns":{"**/*.env":"ask","**":"auto"}}`)
	var res rpcproto.SessionSettingsResult
	if err := json.Unmarshal(r.Data, &res); err != nil || !r.Success {
		t.Fatalf("set_session_settings: %s", r.raw)
	}
	want := []rpcproto.FileRule{{Pattern: "**/*.env", Action: "ask"}, {Pattern: "**", Action: "auto"}}
	if res.ExplorerModel != "small:1b" || len(res.SensitiveFilePatterns) != 2 || res.SensitiveFilePatterns[0] != want[0] || res.SensitiveFilePatterns[1] != want[1] {
		t.Fatalf("result %+v", res)
	}
	sess, err := b.svc.Open(t.Context(), b.sess.ID)
	if err != nil || sess.ExplorerModel != "small:1b" || string(sess.SensitivePatterns) != `[{"pattern":"**/*.env","action":"ask"},{"pattern":"**","action":"auto"}]` {
		t.Fatalf("stored: %+v %v", sess, err)
	}
	// Recorded in the log, so every frontend sees the change.
	ev := c.next("session_settings", func(f frame) bool { return f.Type == string(event.TypeSessionSettings) })
	var p struct {
		Data event.SessionSettings `json:"data"`
	}
	if err := json.Unmarshal(ev.raw, &p); err != nil || p.Data.ExplorerModel == nil || p.Data.SensitivePatterns == nil {
		t.Errorf("event %s: %v", ev.raw, err)
	}

	// null clears the rules; "" the explorer model.
	r = c.call(`"s2"`, `{"id":"s2","type":"set_session_settings","explorerModel":"","sensitiveFilePatterns":null}`)
	if !r.Success || string(r.Data) != `{"sessionId":"`+b.sess.ID+`","explorerModel":"","sensitiveFilePatterns":null}` {
		t.Fatalf("clear: %s", r.raw)
	}
	if sess, _ := b.svc.Open(t.Context(), b.sess.ID); sess.ExplorerModel != "" || sess.SensitivePatterns != nil {
		t.Errorf("after clearing: %+v", sess)
	}

	for _, bad := range []string{
		`{"id":"x","type":"set_session_settings"}`,
		`{"id":"x","type":"set_session_settings","sensitiveFilePatterns":{"**":"maybe"}}`,
		`{"id":"x","type":"set_session_settings","sensitiveFilePatterns":7}`,
	} {
		if r := c.call(`"x"`, bad); r.Success || r.Error == "" {
			t.Errorf("%s: %s", bad, r.raw)
		}
	}
}
