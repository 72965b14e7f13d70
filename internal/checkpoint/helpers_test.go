package checkpoint

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/olly-agent/olly/internal/atomicfile"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// recorder is an Emitter that keeps what was emitted.
type recorder struct {
	mu     sync.Mutex
	events []emitted
}

type emitted struct {
	session string
	turn    int
	payload event.Payload
}

func (r *recorder) Emit(_ context.Context, session string, turn int, p event.Payload) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, emitted{session, turn, p})
	return nil
}

func (r *recorder) take() []event.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]event.Payload, len(r.events))
	for i, e := range r.events {
		out[i] = e.payload
	}
	r.events = nil
	return out
}

// env is a workspace, a store with one session, and a manager.
type env struct {
	t       testing.TB
	ctx     context.Context
	root    string
	st      *store.Store
	m       *Manager
	rec     *recorder
	session string
	turn    int
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvIn(t, openStore(t))
}

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// newEnvIn makes a workspace and a session in an open store.
func newEnvIn(t testing.TB, st *store.Store) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess := &store.Session{Workspace: root}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	return &env{t: t, ctx: ctx, root: root, st: st, m: New(st, root, rec), rec: rec, session: sess.ID}
}

func (e *env) abs(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// begin starts an agent run.
func (e *env) begin() *Run {
	e.turn++
	return e.m.Begin(e.session, e.turn)
}

// write does what write_file does: snapshot, create missing directories,
// write atomically keeping the mode (0644 for a new file).
func (e *env) write(run *Run, rel, content string) string {
	e.t.Helper()
	abs := e.abs(rel)
	var newDirs []string
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		newDirs = append([]string{dir}, newDirs...)
	}
	info, _ := os.Lstat(abs)
	id, err := run.BeforeWrite(e.ctx, workspace.Path{Abs: abs, Rel: rel, Info: info}, newDirs)
	if err != nil {
		e.t.Fatalf("BeforeWrite(%s): %v", rel, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		e.t.Fatal(err)
	}
	mode := fs.FileMode(0o644)
	if info != nil {
		mode = info.Mode() & keptBits
	}
	if err := atomicfile.Write(abs, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// put writes a file as the person would (not through olly).
func (e *env) put(rel, content string) {
	e.t.Helper()
	abs := e.abs(rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// read returns a file's content, or "<missing>".
func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.abs(rel))
	if os.IsNotExist(err) {
		return "<missing>"
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) report(run *Run) *event.FilesChanged {
	e.t.Helper()
	p, err := run.Report(e.ctx)
	if err != nil {
		e.t.Fatalf("Report: %v", err)
	}
	return p
}

func (e *env) snapshot(ckpt, rel string) *store.FileSnapshot {
	e.t.Helper()
	s, err := e.st.Snapshot(e.ctx, ckpt, rel)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) keep(sel Selector) *Outcome {
	e.t.Helper()
	o, err := e.m.Keep(e.ctx, sel)
	if err != nil {
		e.t.Fatalf("Keep(%+v): %v", sel, err)
	}
	return o
}

func (e *env) undo(sel Selector) *Outcome {
	e.t.Helper()
	o, err := e.m.Undo(e.ctx, sel)
	if err != nil {
		e.t.Fatalf("Undo(%+v): %v", sel, err)
	}
	return o
}

func (e *env) fileReview(ckpt, rel string) FileReview {
	e.t.Helper()
	files, err := e.m.Review(e.ctx, []string{ckpt})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == rel {
			return f
		}
	}
	e.t.Fatalf("%s is not under review in %s (%d files)", rel, ckpt, len(files))
	return FileReview{}
}

// numbered returns "line first\n" … "line last\n".
func numbered(first, last int) string {
	var b []byte
	for i := first; i <= last; i++ {
		b = append(b, []byte("line "+strconv.Itoa(i)+"\n")...)
	}
	return string(b)
}

// snapFor is the snapshot of a modified file, for tests of file alone.
func snapFor() store.FileSnapshot {
	return store.FileSnapshot{FilePath: "f", Existed: true, Status: store.FilePending}
}
