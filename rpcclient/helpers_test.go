package rpcclient

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// ollyBin is the olly binary the tests drive, built once.
var ollyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "olly-rpcclient-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ollyBin = filepath.Join(dir, "olly")
	build := exec.Command("go", "build", "-o", ollyBin, "github.com/olly-agent/olly/cmd/olly")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build olly:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left over:", err)
			code = 1
		}
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// env is a workspace, a hermetic olly environment and a fake model server
// whose replies the test scripts. The agent's prompt classification gets
// a fixed answer, so scripts hold only the turn's own replies.
type env struct {
	t       *testing.T
	srv     *llmtest.Server
	ws      string
	environ []string
}

const testModel = "qwen3:8b"

func newEnv(t *testing.T) *env {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	e := &env{t: t, srv: llmtest.New(t), ws: ws}
	e.srv.AddModel(testModel, llmtest.Caps("completion", "tools"), llmtest.ContextLength(32768))
	e.srv.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"mixed","needsWrite":false,"reasoning":"test"}`)))
	e.environ = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"OLLY_DB=" + filepath.Join(home, "olly.db"),
		// ask mode: these tests answer approvals; in auto mode (the default
		// where the sandbox works) medium commands run confined unasked.
		"OLLY_APPROVAL_MODE=ask",
	}
	return e
}

// reply queues the model's next replies.
func (e *env) reply(rs ...llmtest.Response) { e.srv.Enqueue(rs...) }

// turnRequests are the chat requests of turns (not classifications).
func (e *env) turnRequests() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range e.srv.Requests() {
		if strings.HasSuffix(r.Path, "/chat") && len(r.Format) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// start runs olly --mode rpc in the workspace.
func (e *env) start(events string, args ...string) *Client {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := []string{"--cwd", e.ws, "--base-url", e.srv.URL(), "--model", testModel, "--set", "embedding.model="}
	c, err := Start(ctx, Options{Binary: ollyBin, Args: append(base, args...), Env: e.environ, Events: events})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if err := c.Close(); err != nil {
			e.t.Errorf("olly did not end cleanly: %v\nstderr: %s", err, c.Stderr())
		}
	})
	return c
}

func (e *env) write(rel, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.ws, rel), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.ws, rel))
	if os.IsNotExist(err) {
		return "<missing>"
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// watcher collects a client's events and waits for the ones a test needs.
type watcher struct {
	t   *testing.T
	c   *Client
	all []event.Event
}

func watch(t *testing.T, c *Client) *watcher { return &watcher{t: t, c: c} }

// until reads events until one satisfies ok, and returns it.
func (w *watcher) until(what string, ok func(event.Event) bool) event.Event {
	w.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, open := <-w.c.Events():
			if !open {
				w.t.Fatalf("olly's output ended while waiting for %s; stderr: %s", what, w.c.Stderr())
			}
			w.all = append(w.all, ev)
			if ok(ev) {
				return ev
			}
		case <-timeout:
			w.t.Fatalf("no %s within 30s; saw %s", what, types(w.all))
		}
	}
}

func (w *watcher) typ(t event.Type) event.Event {
	w.t.Helper()
	return w.until(string(t), func(ev event.Event) bool { return ev.Type() == t })
}

// finished waits for the turn's end and returns its status.
func (w *watcher) finished() event.TurnFinished {
	w.t.Helper()
	return w.typ(event.TypeTurnFinished).Data.(event.TurnFinished)
}

func types(evs []event.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(string(ev.Type()))
		b.WriteByte(' ')
	}
	return b.String()
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
