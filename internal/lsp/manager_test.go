package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// waitLog waits until the fake's log has a line containing want.
func waitLog(t *testing.T, path, want string) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := fakeLog(t, path)
		for _, l := range lines {
			if strings.Contains(l, want) {
				return lines
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake server never logged %q; log:\n%s", want, strings.Join(lines, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func count(lines []string, want string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, want) {
			n++
		}
	}
	return n
}

func TestFakeServerToClientRequests(t *testing.T) {
	m, root, log := fakeManager(t, "ask", Options{})
	ctx := testCtx(t)
	if _, err := m.Definition(ctx, filepath.Join(root, "good.fk"), Position{}); err != nil {
		t.Fatal(err)
	}
	wants := []string{
		"response id=901 result=[null,null]", // configuration: null per item
		"response id=902 result=null",        // registerCapability
		"response id=903 result=null",        // workDoneProgress/create
		"response id=904 result=[{",          // workspaceFolders
		"response id=905 result=null",        // showMessageRequest
	}
	// The client answers the server's requests concurrently, so the
	// answers may be logged in any order: wait for each.
	var lines []string
	for _, want := range wants {
		lines = waitLog(t, log, want)
	}
	for _, want := range wants {
		if count(lines, want) != 1 {
			t.Errorf("log lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	// The registration offered pull diagnostics: olly now pulls them.
	reps, err := m.Diagnose(ctx, []string{filepath.Join(root, "bad.fk")})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps[0].Errors()) != 1 || count(fakeLog(t, log), "textDocument/diagnostic") != 1 {
		t.Fatalf("pulled diagnostics = %+v", reps[0])
	}
}

func TestFakeServerDiagnostics(t *testing.T) {
	for _, flags := range []string{"push", "pull"} {
		t.Run(flags, func(t *testing.T) {
			m, root, _ := fakeManager(t, flags, Options{CheckSettle: 100 * time.Millisecond})
			ctx := testCtx(t)
			ws, _ := workspace.New([]string{root})
			p, err := ws.Resolve("bad.fk")
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.AfterWrite(ctx, p)
			if err != nil || out != "bad.fk:2:7: Error: BAD is not allowed (fake)" {
				t.Fatalf("AfterWrite = %q, %v", out, err)
			}
			rep, err := m.Check(ctx, []string{"bad.fk", "good.fk", "README.md", "deleted.fk"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Errors != 1 || !strings.Contains(rep.Text, "bad.fk: 1 error\nbad.fk:2:7:") {
				t.Fatalf("Check = %+v", rep)
			}
			if len(rep.Unchecked) != 1 || rep.Unchecked[0] != "README.md" || strings.Contains(rep.Text, "README") {
				t.Fatalf("Unchecked = %v, text %q: README.md is unchecked, without a note", rep.Unchecked, rep.Text)
			}
			write(t, p.Abs, "hello\nworld is fine\n")
			if out, err := m.AfterWrite(ctx, p); err != nil || out != "" {
				t.Fatalf("AfterWrite after the fix = %q, %v", out, err)
			}
			rep, err = m.Check(ctx, []string{"bad.fk"})
			if err != nil || rep.Errors != 0 || len(rep.Unchecked) != 0 {
				t.Fatalf("Check after the fix = %+v, %v", rep, err)
			}
		})
	}
}

func TestFakeServerCrashRestarts(t *testing.T) {
	m, root, log := fakeManager(t, "crashonce=textDocument/definition", Options{RestartBackoff: 10 * time.Millisecond})
	ctx := testCtx(t)
	good := filepath.Join(root, "good.fk")
	if _, err := m.Definition(ctx, good, Position{}); err == nil {
		t.Fatal("the request that crashed the server succeeded")
	}
	locs, err := m.Definition(ctx, good, Position{Line: 0, Character: 2})
	if err != nil || len(locs) != 1 || locs[0].Range.Start.Character != 2 {
		t.Fatalf("after the crash: %+v, %v; want the restarted server's answer", locs, err)
	}
	lines := fakeLog(t, log)
	if count(lines, "initialize") < 2 {
		t.Fatalf("the server was not started again:\n%s", strings.Join(lines, "\n"))
	}
	// The tracked document was opened again in the new server.
	if count(lines, "textDocument/didOpen") != 2 {
		t.Fatalf("didOpen sent %d times, want 2:\n%s", count(lines, "textDocument/didOpen"), strings.Join(lines, "\n"))
	}
}

func TestFakeServerRestartsAreBounded(t *testing.T) {
	m, root, _ := fakeManager(t, "crash=textDocument/definition", Options{RestartBackoff: 5 * time.Millisecond, MaxRestarts: 2})
	ctx := testCtx(t)
	good := filepath.Join(root, "good.fk")
	for i := range 2 {
		if _, err := m.Definition(ctx, good, Position{}); err == nil {
			t.Fatalf("call %d succeeded on a crashing server", i+1)
		}
	}
	_, err := m.Definition(ctx, good, Position{})
	var crashed *CrashedError
	if !errors.As(err, &crashed) || crashed.Restarts != 2 {
		t.Fatalf("third call: %v, want a CrashedError after 2 crashes", err)
	}
}

func TestFakeServerTimeoutCancels(t *testing.T) {
	m, root, log := fakeManager(t, "hang=textDocument/hover", Options{RequestTimeout: 300 * time.Millisecond, WarmupTimeout: 300 * time.Millisecond})
	ctx := testCtx(t)
	good := filepath.Join(root, "good.fk")
	_, err := m.Hover(ctx, good, Position{})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Method != "textDocument/hover" {
		t.Fatalf("Hover = %v, want a timeout", err)
	}
	waitLog(t, log, "cancel id=")
	// A caller that gives up is cancelled the same way.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := m.Hover(cctx, good, Position{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Hover with an expiring ctx = %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count(fakeLog(t, log), "cancel id=") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second request was not cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The server still answers other requests.
	if _, err := m.Definition(ctx, good, Position{}); err != nil {
		t.Fatalf("Definition after timeouts: %v", err)
	}
}

func TestFakeServerSlowStart(t *testing.T) {
	t.Run("start timeout", func(t *testing.T) {
		m, root, _ := fakeManager(t, "slowstart=2s", Options{StartTimeout: 200 * time.Millisecond})
		_, err := m.Definition(testCtx(t), filepath.Join(root, "good.fk"), Position{})
		var ua *UnavailableError
		if !errors.As(err, &ua) || ua.Err == nil {
			t.Fatalf("err = %v, want a start failure", err)
		}
	})
	t.Run("caller gives up, the start goes on", func(t *testing.T) {
		m, root, _ := fakeManager(t, "slowstart=500ms", Options{})
		ctx, cancel := context.WithTimeout(testCtx(t), 50*time.Millisecond)
		defer cancel()
		good := filepath.Join(root, "good.fk")
		if _, err := m.Definition(ctx, good, Position{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the caller's deadline", err)
		}
		if _, err := m.Definition(testCtx(t), good, Position{}); err != nil {
			t.Fatalf("second call: %v", err)
		}
	})
	t.Run("close during start", func(t *testing.T) {
		m, root, _ := fakeManager(t, "slowstart=5s", Options{})
		ctx, cancel := context.WithTimeout(testCtx(t), 100*time.Millisecond)
		defer cancel()
		_, _ = m.Definition(ctx, filepath.Join(root, "good.fk"), Position{})
		start := time.Now()
		closeManager(t, m)
		if time.Since(start) > 3*time.Second {
			t.Fatalf("Close waited %s for a starting server", time.Since(start))
		}
		if _, err := m.Definition(testCtx(t), filepath.Join(root, "good.fk"), Position{}); !errors.Is(err, ErrClosed) {
			t.Fatalf("after Close: %v", err)
		}
	})
}

func TestFakeServerNeverPublishes(t *testing.T) {
	m, root, _ := fakeManager(t, "nodiag", Options{DiagnosticsWait: 300 * time.Millisecond, WarmupDiagnosticsWait: 300 * time.Millisecond})
	ctx := testCtx(t)
	ws, _ := workspace.New([]string{root})
	p, _ := ws.Resolve("bad.fk")
	out, err := m.AfterWrite(ctx, p)
	if err != nil || !strings.Contains(out, "bad.fk was not checked for errors") || !strings.Contains(out, "reported no diagnostics") {
		t.Fatalf("AfterWrite = %q, %v; want an honest note", out, err)
	}
	rep, err := m.Check(ctx, []string{"bad.fk"})
	if err != nil || rep.Errors != 0 || len(rep.Unchecked) != 1 || !strings.Contains(rep.Text, "not checked") {
		t.Fatalf("Check = %+v, %v; want bad.fk unchecked", rep, err)
	}
}

func TestMissingServerReportedOnce(t *testing.T) {
	var logged syncBuilder
	ws := copyFixture(t, "fakefixture")
	m := NewManager(ws, Options{
		Servers: []Server{{Language: "fake", Extensions: []string{".fk"}, Command: "olly-no-such-server", Install: "apt-get install fake"}},
		Logger:  textLogger(&logged),
	})
	defer closeManager(t, m)
	ctx := testCtx(t)
	p, _ := ws.Resolve("bad.fk")
	first, err := m.AfterWrite(ctx, p)
	if err != nil || first != "bad.fk was not checked for errors: no language server for fake (apt-get install fake)." {
		t.Fatalf("first AfterWrite = %q, %v", first, err)
	}
	if again, _ := m.AfterWrite(ctx, p); again != "" {
		t.Fatalf("second AfterWrite = %q, want nothing (said once)", again)
	}
	_, err = m.Definition(ctx, p.Abs, Position{})
	var ua *UnavailableError
	if !errors.As(err, &ua) || err.Error() != "no language server for fake (apt-get install fake)" {
		t.Fatalf("Definition = %v", err)
	}
	if n := strings.Count(logged.String(), "no language server installed"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logged.String())
	}
}

func TestDocumentsCappedAndClosed(t *testing.T) {
	m, root, log := fakeManager(t, "push", Options{MaxOpenDocuments: 1})
	ctx := testCtx(t)
	for _, f := range []string{"good.fk", "bad.fk"} {
		if _, err := m.Definition(ctx, filepath.Join(root, f), Position{}); err != nil {
			t.Fatal(err)
		}
	}
	waitLog(t, log, "textDocument/didClose")
	closeManager(t, m)
	lines := fakeLog(t, log)
	if count(lines, "shutdown") != 1 || count(lines, "exit") != 1 {
		t.Fatalf("Close did not shut the server down:\n%s", strings.Join(lines, "\n"))
	}
}
