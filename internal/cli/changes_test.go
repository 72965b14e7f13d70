package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// changesEnv is a workspace with a session in a real database, and agent
// runs recorded through the checkpoint package as the agent records them.
type changesEnv struct {
	*testEnv
	db      string
	root    string
	st      *store.Store
	m       *checkpoint.Manager
	session string
}

func newChangesEnv(t *testing.T) *changesEnv {
	t.Helper()
	db := filepath.Join(t.TempDir(), "olly.db")
	e := &changesEnv{testEnv: newTestEnv(t, "OLLY_DB="+db), db: db}
	root, err := filepath.EvalSymlinks(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	e.root = root
	ctx := context.Background()
	if e.st, err = store.Open(ctx, db, store.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.st.Close() })
	sess := &store.Session{Workspace: root, Title: "fix things"}
	if err := e.st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	e.session = sess.ID
	e.m = checkpoint.New(e.st, root, nil)
	return e
}

func (e *changesEnv) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// agent writes files (path, content, path, content…) in one agent run,
// as write_file does.
func (e *changesEnv) agent(t *testing.T, turn int, files ...string) string {
	t.Helper()
	ctx := context.Background()
	run := e.m.Begin(e.session, turn)
	for i := 0; i+1 < len(files); i += 2 {
		rel, content := files[i], files[i+1]
		abs := e.path(rel)
		var newDirs []string
		for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil {
				break
			}
			newDirs = append([]string{d}, newDirs...)
		}
		info, _ := os.Lstat(abs)
		if _, err := run.BeforeWrite(ctx, workspace.Path{Abs: abs, Rel: rel, Info: info}, newDirs); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := fs.FileMode(0o644)
		if info != nil {
			mode = info.Mode().Perm()
		}
		if err := os.WriteFile(abs, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := run.Report(ctx); err != nil {
		t.Fatal(err)
	}
	return run.ID()
}

func (e *changesEnv) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(e.path(rel))
	if os.IsNotExist(err) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lines returns "line 01\n" … with some lines replaced.
func lines(from, to int, edit map[int]string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if s, ok := edit[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "line %02d\n", i)
	}
	return b.String()
}

// setup: run 1 changes a.txt in three places and creates new/dir/b.txt;
// run 2 writes a binary file.
func (e *changesEnv) setup(t *testing.T) (id1, id2 string) {
	t.Helper()
	e.write(t, e.path("a.txt"), lines(1, 30, nil))
	e.write(t, e.path("c.bin"), "\x00old")
	id1 = e.agent(t, 1,
		"a.txt", lines(1, 30, map[int]string{2: "agent 2\n", 15: "agent 15\n", 28: "agent 28\n"}),
		"new/dir/b.txt", "hello\n")
	id2 = e.agent(t, 2, "c.bin", "\x00new")
	return id1, id2
}

func TestChangesList(t *testing.T) {
	e := newChangesEnv(t)
	id1, id2 := e.setup(t)
	code, out, errOut := e.run(t, "changes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Session " + e.session, `"fix things"`, "3 pending file(s), +5 −4",
		"Checkpoint " + id1 + " (turn 1", "pending +4 −3", "M a.txt", "+3 −3", "A new/dir/b.txt", "+1 −0",
		"Checkpoint " + id2 + " (turn 2", "M c.bin", "+1 −1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = e.run(t, "changes", "--json")
	var got changesListJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if got.SessionID != e.session || got.Additions != 5 || got.Deletions != 4 || got.Files != 3 || len(got.Checkpoints) != 2 ||
		got.Checkpoints[0].ID != id1 || len(got.Checkpoints[0].Files) != 2 || got.Checkpoints[0].Files[0].Path != "a.txt" {
		t.Errorf("json %+v", got)
	}
	// From a subdirectory, and with --session from anywhere.
	f, outBuf, _ := e.factory()
	if code := Execute(f, []string{"--cwd", e.path("new"), "changes"}); code != 0 || !strings.Contains(outBuf.String(), id1) {
		t.Errorf("from a subdirectory: exit %d\n%s", code, outBuf)
	}
	f, outBuf, _ = e.factory()
	if code := Execute(f, []string{"--cwd", t.TempDir(), "changes", "--session", e.session}); code != 0 || !strings.Contains(outBuf.String(), id2) {
		t.Errorf("--session: exit %d\n%s", code, outBuf)
	}
}

func TestChangesNoSession(t *testing.T) {
	e := newChangesEnv(t)
	f, _, errOut := e.factory()
	if code := Execute(f, []string{"--cwd", t.TempDir(), "changes"}); code != ExitFailure || !strings.Contains(errOut.String(), "no olly session") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut2 := e.run(t, "changes", "--session", "NOPE")
	if code != ExitFailure || !strings.Contains(errOut2, "NOPE") {
		t.Errorf("unknown session: exit %d: %s", code, errOut2)
	}
	code, out, _ := e.run(t, "changes")
	if code != 0 || !strings.Contains(out, "No pending changes") {
		t.Errorf("empty session: exit %d: %s", code, out)
	}
}

func TestChangesDiff(t *testing.T) {
	e := newChangesEnv(t)
	e.setup(t)
	code, out, errOut := e.run(t, "changes", "diff", "a.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"--- a/a.txt\n+++ b/a.txt\n", "@@ -1,5 +1,5 @@ hunk 1\n line 01\n-line 02\n+agent 2\n",
		"hunk 2", "@@ -25,6 +25,6 @@ hunk 3\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") || strings.Contains(out, "b.txt") {
		t.Errorf("colour without a terminal, or another file:\n%s", out)
	}
	f, outBuf, _ := e.factory()
	f.IO.Color = true
	if code := Execute(f, []string{"--cwd", e.ws, "changes", "diff"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	colored := outBuf.String()
	for _, want := range []string{"\x1b[32m+agent 2\x1b[0m\n", "\x1b[31m-line 02\x1b[0m\n", "\x1b[36m@@", "+++ b/new/dir/b.txt", "binary file"} {
		if !strings.Contains(colored, want) {
			t.Errorf("coloured diff lacks %q:\n%s", want, colored)
		}
	}
	code, out, _ = e.run(t, "changes", "diff", "--json")
	var files []checkpoint.FileReview
	if err := json.Unmarshal([]byte(out), &files); code != 0 || err != nil || len(files) != 3 || len(files[0].Hunks) != 3 || files[0].Hunks[1].NewText != "agent 15\n" {
		t.Errorf("json diff: exit %d, %v, %+v", code, err, files)
	}
	if code, _, errOut := e.run(t, "changes", "diff", "nope.txt"); code != ExitFailure || !strings.Contains(errOut, "no pending changes") {
		t.Errorf("diff of an unchanged file: exit %d: %s", code, errOut)
	}
}

func TestChangesKeepUndo(t *testing.T) {
	e := newChangesEnv(t)
	id1, _ := e.setup(t)
	code, out, errOut := e.run(t, "changes", "undo", "a.txt", "--hunk", "2")
	if code != 0 || !strings.Contains(out, "Undone: hunk 2 of a.txt; +2 −2 left to review") {
		t.Fatalf("undo hunk: exit %d\n%s%s", code, out, errOut)
	}
	if got := e.read(t, "a.txt"); got != lines(1, 30, map[int]string{2: "agent 2\n", 28: "agent 28\n"}) {
		t.Fatalf("a.txt after undoing hunk 2:\n%s", got)
	}
	// The person edits the line the agent wrote in hunk 1: undoing the
	// file undoes hunk 2 (now the last) and reports hunk 1, exit 1.
	e.write(t, e.path("a.txt"), lines(1, 30, map[int]string{2: "mine 2\n", 28: "agent 28\n"}))
	code, out, errOut = e.run(t, "changes", "undo", "a.txt")
	if code != ExitFailure || !strings.Contains(out, "Partly undone: a.txt (1 change(s) undone, 1 left)") ||
		!strings.Contains(errOut, "a.txt: hunk 1: its lines were edited after the agent wrote them") {
		t.Fatalf("undo with a conflict: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := e.read(t, "a.txt"); got != lines(1, 30, map[int]string{2: "mine 2\n"}) {
		t.Fatalf("a.txt after the partial undo:\n%s", got)
	}
	// keep --all resolves the conflicting hunk and the created file; then
	// undo --all undoes the binary of run 2.
	if code, out, errOut := e.run(t, "changes", "keep", "a.txt", "--checkpoint", id1); code != 0 || !strings.Contains(out, "Kept: a.txt (partial)") {
		t.Fatalf("keep a.txt: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = e.run(t, "changes", "undo", "--all", "--json")
	var res changesActJSON
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Outcomes) != 2 || len(res.Conflicts) != 0 {
		t.Fatalf("undo --all: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if e.read(t, "c.bin") != "\x00old" || e.read(t, "new/dir/b.txt") != "<missing>" {
		t.Error("undo --all left the binary or the created file")
	}
	if _, err := os.Lstat(e.path("new")); !os.IsNotExist(err) {
		t.Errorf("the directories olly created remain: %v", err)
	}
	code, out, _ = e.run(t, "changes")
	if code != 0 || !strings.Contains(out, "No pending changes") {
		t.Errorf("after resolving everything: exit %d\n%s", code, out)
	}
	// Everything was recorded in the session's log.
	evs, err := e.st.Events(context.Background(), e.session, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	if got := strings.Join(types, " "); !strings.Contains(got, "file_change_result") || !strings.Contains(got, "keep_undo_result") {
		t.Errorf("session log: %s", got)
	}
}

func TestChangesUsage(t *testing.T) {
	e := newChangesEnv(t)
	e.setup(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"nothing named", []string{"changes", "keep"}, ExitUsage, "a FILE, or --all"},
		{"file and all", []string{"changes", "undo", "a.txt", "--all"}, ExitUsage, "not both"},
		{"hunk without file", []string{"changes", "undo", "--all", "--hunk", "1"}, ExitUsage, "--hunk needs FILE"},
		{"hunk out of range", []string{"changes", "undo", "a.txt", "--hunk", "9"}, ExitUsage, "has 3 hunk(s), not 9"},
		{"hunk of a binary", []string{"changes", "keep", "c.bin", "--hunk", "1"}, ExitUsage, "only as a whole"},
		{"negative hunk", []string{"changes", "keep", "a.txt", "--hunk", "-2"}, ExitUsage, "numbered from 1"},
		{"unknown checkpoint", []string{"changes", "keep", "--all", "--checkpoint", "X"}, ExitUsage, "no checkpoint X"},
		{"unchanged file", []string{"changes", "undo", "zzz.txt"}, ExitFailure, "no pending changes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := e.run(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.msg)
			}
		})
	}
	if got := e.read(t, "a.txt"); !strings.Contains(got, "agent 15") {
		t.Error("a refused command changed a.txt")
	}
}
