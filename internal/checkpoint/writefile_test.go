package checkpoint

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// The real write_file tool, with a Run as its Snapshotter: the agent's
// writes are checkpointed and undo restores the tree.
func TestWithWriteFileTool(t *testing.T) {
	e := newEnv(t)
	e.put("main.go", "package main\n\nfunc main() {}\n")
	if err := os.Chmod(e.abs("main.go"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{e.root})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.Core()...)
	if err != nil {
		t.Fatal(err)
	}
	run := e.begin()
	env := &tools.Env{Session: e.session, Turn: e.turn, Workspace: ws, Snapshots: run,
		Emit: func(context.Context, event.Payload) error { return nil }}
	write := func(path, content string) *tools.Result {
		raw, _ := json.Marshal(map[string]string{"path": path, "content": content})
		out := reg.Execute(e.ctx, env, tools.Call{ID: path, Name: "write_file", Args: raw, GroupID: "g", ActionID: path})
		if out.Result.IsError {
			t.Fatalf("write_file %s: %s", path, out.Result.Content)
		}
		return out.Result
	}
	res := write("main.go", "package main\n\nfunc main() { println(1) }\n")
	write("cmd/tool/tool.go", "package tool\n")
	write("main.go", "package main\n\nfunc main() { println(2) }\n")
	if res.Display.CheckpointID == "" || res.Display.CheckpointID != run.ID() {
		t.Fatalf("the tool reported checkpoint %q, run %q", res.Display.CheckpointID, run.ID())
	}
	p := e.report(run)
	if len(p.Files) != 2 || p.Files[0].Path != "main.go" || p.Files[0].Additions != 1 || p.Files[1].Action != "created" {
		t.Fatalf("files_changed %+v", p)
	}
	e.undo(Selector{Checkpoint: run.ID()})
	if got := e.read("main.go"); got != "package main\n\nfunc main() {}\n" {
		t.Errorf("main.go after undo: %q", got)
	}
	if info, err := os.Stat(e.abs("main.go")); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("mode after undo: %v, %v", info.Mode(), err)
	}
	if _, err := os.Lstat(e.abs("cmd")); !os.IsNotExist(err) {
		t.Errorf("cmd/ is still there: %v", err)
	}
}
