package lsp

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

func TestProbe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fake := Server{Language: "fake", Extensions: []string{".fk"}, Command: exe}
	env := func(flags string) []string {
		return append(os.Environ(), fakeServerEnv+"="+flags, "GORACE=atexit_sleep_ms=0")
	}
	tests := []struct {
		name   string
		server Server
		flags  string
		within time.Duration
		check  func(t *testing.T, r ProbeResult)
	}{
		{name: "starts", server: fake, flags: "push", check: func(t *testing.T, r ProbeResult) {
			if !r.Found || !r.Started || r.Info != "fake 1" || r.Err != nil {
				t.Fatalf("%+v", r)
			}
		}},
		{name: "missing", server: Server{Language: "x", Command: "olly-no-such-server"}, check: func(t *testing.T, r ProbeResult) {
			if r.Found || r.Started {
				t.Fatalf("%+v", r)
			}
		}},
		{name: "dies at start, with its reason", server: fake, flags: "die=Unknown binary 'fake' in toolchain", check: func(t *testing.T, r ProbeResult) {
			if !r.Found || r.Started || r.Err == nil || !strings.Contains(r.Err.Error(), "exited (exit status 1): error: Unknown binary 'fake' in toolchain") {
				t.Fatalf("%+v", r)
			}
		}},
		{name: "too slow", server: fake, flags: "slowstart=5s", within: 500 * time.Millisecond, check: func(t *testing.T, r ProbeResult) {
			if r.Started || !errors.Is(r.Err, context.DeadlineExceeded) {
				t.Fatalf("%+v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			within := tt.within
			if within == 0 {
				within = 10 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), within)
			defer cancel()
			tt.check(t, Probe(ctx, tt.server, t.TempDir(), Options{Env: env(tt.flags), Logger: testLogger(t)}))
		})
	}
}

func TestMultiRootWorkspaceFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write(t, a+"/one.fk", "one\n")
	ws, err := workspace.New([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	logPath := t.TempDir() + "/fake.log"
	m := NewManager(ws, Options{Logger: testLogger(t),
		Servers: []Server{{Language: "fake", Extensions: []string{".fk"}, Command: exe}},
		Env:     append(os.Environ(), fakeServerEnv+"=ask", fakeLogEnv+"="+logPath, "GORACE=atexit_sleep_ms=0")})
	defer closeManager(t, m)
	if _, err := m.Definition(testCtx(t), ws.Roots()[0].Path+"/one.fk", Position{}); err != nil {
		t.Fatal(err)
	}
	lines := waitLog(t, logPath, "response id=904")
	for _, l := range lines {
		if strings.HasPrefix(l, "response id=904") {
			for _, r := range ws.Roots() {
				if !strings.Contains(l, string(FileURI(r.Path))) {
					t.Fatalf("workspace folders %s lack %s", l, r.Path)
				}
			}
		}
	}
}
