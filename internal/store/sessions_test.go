package store

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSessionCRUD(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s := openTest(t, Options{Now: c.now})
	sess := &Session{Title: "Fix the parser", Workspace: "/home/me/proj/../proj", Model: "qwen3"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if len(sess.ID) != 26 || sess.Status != StatusIdle || sess.Workspace != "/home/me/proj" {
		t.Fatalf("created %+v", sess)
	}
	got, err := s.Session(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Fix the parser" || got.Model != "qwen3" || !got.CreatedAt.Equal(c.t) || got.Owner != nil {
		t.Errorf("read back %+v", got)
	}
	c.advance(time.Minute)
	up, err := s.UpdateSession(ctx, sess.ID, func(x *Session) error {
		x.Title, x.ExplorerModel, x.AutoApproveSensitiveEdits = "Parser fixed", "small", true
		x.SessionMemory = []byte(`{"facts":["uses go"]}`)
		x.LeafSeq, x.Status = 99, StatusError // not editable here
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.Title != "Parser fixed" || up.ExplorerModel != "small" || !up.AutoApproveSensitiveEdits ||
		string(up.SessionMemory) != `{"facts":["uses go"]}` || up.LeafSeq != 0 || up.Status != StatusIdle ||
		!up.UpdatedAt.Equal(c.t) {
		t.Errorf("updated %+v", up)
	}
	cases := []struct {
		name string
		sess *Session
		want string
	}{
		{"relative workspace", &Session{Workspace: "proj"}, "not an absolute path"},
		{"bad memory", &Session{Workspace: "/p", SessionMemory: []byte("{")}, "not valid JSON"},
		{"interrupted", &Session{Workspace: "/p", Status: StatusInterrupted}, "cannot store status"},
		{"duplicate id", &Session{ID: sess.ID, Workspace: "/p"}, "UNIQUE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.CreateSession(ctx, tc.sess); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := s.Session(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing session: %v", err)
	}
	if _, err := s.UpdateSession(ctx, "nope", func(*Session) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("update missing: %v", err)
	}
}

func TestListAndLatest(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s := openTest(t, Options{Now: c.now})
	for _, x := range []struct{ id, ws string }{{"s1", "/a"}, {"s2", "/b"}, {"s3", "/a"}, {"s4", "/a"}} {
		c.advance(time.Second)
		if err := s.CreateSession(ctx, &Session{ID: x.id, Workspace: x.ws}); err != nil {
			t.Fatal(err)
		}
	}
	c.advance(time.Second)
	appendText(t, s, "s1", "x", "activity moves s1 to the top")
	s.SetStatus(ctx, "s3", StatusError)

	cases := []struct {
		name string
		f    ListFilter
		want []string
	}{
		{"all", ListFilter{}, []string{"s1", "s4", "s3", "s2"}},
		{"workspace", ListFilter{Workspace: "/a"}, []string{"s1", "s4", "s3"}},
		{"status", ListFilter{Status: StatusError}, []string{"s3"}},
		{"page", ListFilter{Limit: 2, Offset: 1}, []string{"s4", "s3"}},
		{"offset only", ListFilter{Offset: 3}, []string{"s2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListSessions(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, x := range got {
				ids = append(ids, x.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
		})
	}
	latest, err := s.LatestSession(ctx, "/b")
	if err != nil || latest.ID != "s2" {
		t.Errorf("latest in /b = %v, %v", latest, err)
	}
	if _, err := s.LatestSession(ctx, "/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("latest in empty workspace: %v", err)
	}
}

func TestDeleteSessionCascades(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newSession(t, s, "gone")
	newSession(t, s, "kept")
	appendText(t, s, "gone", "x", "unique zebra words")
	appendText(t, s, "kept", "x", "other words")
	ck := &Checkpoint{SessionID: "gone"}
	if err := s.CreateCheckpoint(ctx, ck); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddSnapshot(ctx, &FileSnapshot{CheckpointID: ck.ID, FilePath: "a.go", Existed: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int{"events": 1, "checkpoints": 0, "file_snapshots": 0, "sessions": 1} {
		var n int
		s.r.QueryRow("SELECT count(*) FROM " + table).Scan(&n)
		if n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	res, err := s.Search(ctx, SearchQuery{Text: "zebra"})
	if err != nil || len(res.Sessions) != 0 {
		t.Errorf("search finds deleted session: %+v %v", res, err)
	}
	if err := s.DeleteSession(ctx, "gone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestInterruptedDetection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	newSession(t, s, "a")

	// A second process generating in the session: it stays generating, and
	// this process may not take it over.
	child := childCmd(t, "generate", path, "a")
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child said %q, %v: %s", line, err, child.Stderr)
	}
	sess, _ := s.Session(ctx, "a")
	if sess.Status != StatusGenerating || sess.Owner == nil || sess.Owner.PID != child.Process.Pid {
		t.Fatalf("while the child runs: %+v", sess)
	}
	if err := s.SetStatus(ctx, "a", StatusGenerating); !errors.Is(err, ErrSessionBusy) {
		t.Errorf("taking over a live session: %v", err)
	}
	if list, _ := s.ListSessions(ctx, ListFilter{Status: StatusGenerating}); len(list) != 1 {
		t.Errorf("generating filter: %d sessions", len(list))
	}

	// The child dies without clearing the status (stdin closed → it
	// returns; we kill it first so it cannot clean up).
	_ = child.Process.Kill()
	stdin.Close()
	_ = child.Wait()
	sess, _ = s.Session(ctx, "a")
	if sess.Status != StatusInterrupted {
		t.Fatalf("after the child died: status %s", sess.Status)
	}
	if list, _ := s.ListSessions(ctx, ListFilter{Status: StatusInterrupted}); len(list) != 1 {
		t.Errorf("interrupted filter: %d sessions", len(list))
	}
	if list, _ := s.ListSessions(ctx, ListFilter{Status: StatusGenerating}); len(list) != 0 {
		t.Errorf("generating filter after death: %d sessions", len(list))
	}
	// An interrupted session can be taken over.
	if err := s.SetStatus(ctx, "a", StatusGenerating); err != nil {
		t.Fatal(err)
	}
	sess, _ = s.Session(ctx, "a")
	if sess.Status != StatusGenerating || sess.Owner.PID != s.me.PID {
		t.Errorf("after takeover: %+v", sess)
	}
	if err := s.SetStatus(ctx, "a", StatusIdle); err != nil {
		t.Fatal(err)
	}
	if sess, _ = s.Session(ctx, "a"); sess.Owner != nil || sess.Status != StatusIdle {
		t.Errorf("idle keeps owner: %+v", sess)
	}
	if err := s.SetStatus(ctx, "a", StatusInterrupted); err == nil {
		t.Error("interrupted was stored")
	}
}

func TestOwnerGone(t *testing.T) {
	me := currentOwner()
	// A process that ran and exited: its pid is free (or reused, which the
	// start time catches).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := cmd.Process.Pid
	cases := []struct {
		name string
		o    Owner
		gone bool
	}{
		{"this process", me, false},
		{"exited process", Owner{PID: dead, Host: me.Host, Start: 1}, true},
		{"other host", Owner{PID: dead, Host: me.Host + "-elsewhere"}, false},
		{"pid reused", Owner{PID: me.PID, Host: me.Host, Start: me.Start + 1}, me.Start != 0},
		{"no pid", Owner{Host: me.Host}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.gone(me); got != tc.gone {
				t.Errorf("gone = %v, want %v", got, tc.gone)
			}
		})
	}
}
