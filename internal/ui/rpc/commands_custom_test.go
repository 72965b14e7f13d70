package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/rpcproto"
)

// get_commands lists the built-ins and the custom commands of the
// session's workspace, each with its source.
func TestGetCommandsCustom(t *testing.T) {
	b := newBackend(t, quickRunner{})
	p := filepath.Join(b.sess.Workspace, ".olly", "commands", "fix.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix $1.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, b, nil)
	r := c.call(`"gc"`, `{"type":"get_commands","id":"gc"}`)
	var res rpcproto.CommandsResult
	if err := json.Unmarshal(r.Data, &res); err != nil || !r.Success {
		t.Fatalf("get_commands: %s (%v)", r.raw, err)
	}
	got := map[string]rpcproto.CommandInfo{}
	for _, ci := range res.Commands {
		got[ci.Name] = ci
	}
	if ci := got["fix"]; ci.Source != "project" || ci.Description != "Fix an issue" || ci.Usage != "/fix <issue>" {
		t.Errorf("fix = %+v", ci)
	}
	if ci := got["plan"]; ci.Source != "builtin" {
		t.Errorf("plan = %+v", ci)
	}
	if ci := got["skills"]; ci.Source != "builtin" {
		t.Errorf("skills = %+v", ci)
	}
}
