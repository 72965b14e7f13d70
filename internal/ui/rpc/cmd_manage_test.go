package rpc

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

func TestManageCommands(t *testing.T) {
	b := newBackend(t, quickRunner{})
	ctx := context.Background()
	other, err := b.svc.Create(ctx, session.CreateOptions{Workspace: b.sess.Workspace, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	// A pending change in the other session: list_sessions' badge.
	ck := &store.Checkpoint{SessionID: other.ID, TotalAdditions: 3, TotalDeletions: 1}
	if err := b.st.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.AddSnapshot(ctx, &store.FileSnapshot{CheckpointID: ck.ID, FilePath: "a.txt", OriginalContent: []byte("x\n"), Existed: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cmd/parse/main.go", "parse.go", "README.md"} {
		p := filepath.Join(b.sess.Workspace, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := serve(t, b, nil)
	c.call(`"p1"`, `{"id":"p1","type":"prompt","message":"first prompt"}`)
	c.call(`"p2"`, `{"id":"p2","type":"prompt","message":"second prompt","streamingBehavior":"followUp"}`)

	r := c.call(`"cf"`, `{"id":"cf","type":"complete_files","query":"PARSE"}`)
	if string(r.Data) != `{"files":["parse.go","cmd/parse/main.go"]}` {
		t.Errorf("complete_files: %s", r.raw)
	}

	r = c.call(`"ls"`, `{"id":"ls","type":"list_sessions"}`)
	var list rpcproto.SessionsResult
	if err := json.Unmarshal(r.Data, &list); err != nil || len(list.Sessions) != 2 {
		t.Fatalf("list_sessions: %s", r.raw)
	}
	for _, s := range list.Sessions {
		if s.ID == other.ID && (s.Pending == nil || s.Pending.Additions != 3 || s.Pending.Deletions != 1 || s.Pending.Files != 1) {
			t.Errorf("other session's pending: %+v", s.Pending)
		}
		if s.ID == b.sess.ID && s.Pending != nil {
			t.Errorf("a session without changes has a badge: %+v", s.Pending)
		}
	}

	r = c.call(`"del"`, `{"id":"del","type":"delete_sessions","ids":["`+b.sess.ID+`","`+other.ID+`","nope"]}`)
	var del rpcproto.DeleteSessionsResult
	if err := json.Unmarshal(r.Data, &del); err != nil || !r.Success || strings.Join(del.Deleted, ",") != other.ID || len(del.Refused) != 2 ||
		del.Refused[0].SessionID != b.sess.ID || !strings.Contains(del.Refused[0].Error, "current session") || del.Refused[1].SessionID != "nope" {
		t.Errorf("delete_sessions: %s", r.raw)
	}
	if bad := c.call(`"d2"`, `{"id":"d2","type":"delete_sessions"}`); bad.Success || !strings.Contains(bad.Error, "missing field ids") {
		t.Errorf("delete_sessions without ids: %s", bad.raw)
	}

	// Both prompts are in the history, newest first, after the turns ran.
	c.next("second turn", func(f frame) bool { return f.Type == "turn_finished" })
	c.next("second turn", func(f frame) bool { return f.Type == "turn_finished" })
	r = c.call(`"h"`, `{"id":"h","type":"get_prompt_history","limit":5}`)
	var h rpcproto.PromptHistoryResult
	if err := json.Unmarshal(r.Data, &h); err != nil || len(h.Prompts) != 2 || h.Prompts[0].Text != "second prompt" || h.Prompts[1].Text != "first prompt" {
		t.Errorf("get_prompt_history: %s", r.raw)
	}
	r = c.call(`"h2"`, `{"id":"h2","type":"get_prompt_history","query":"fir"}`)
	if err := json.Unmarshal(r.Data, &h); err != nil || len(h.Prompts) != 1 || h.Prompts[0].Text != "first prompt" {
		t.Errorf("get_prompt_history with a query: %s", r.raw)
	}
}

func TestSettingsCommandsUnavailable(t *testing.T) {
	b := newBackend(t, quickRunner{})
	c := serve(t, b, nil)
	r := c.call(`"g"`, `{"id":"g","type":"get_settings"}`)
	if r.Success || !strings.Contains(r.Error, "not available") {
		t.Errorf("get_settings without a settings service: %s", r.raw)
	}
	r = c.call(`"s"`, `{"id":"s","type":"set_setting","value":"x"}`)
	if r.Success || !strings.Contains(r.Error, "missing field key") {
		t.Errorf("set_setting without key: %s", r.raw)
	}
}
