package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// headServer serves every connection by reading one request head, then
// writing what write writes, then closing; it returns the base URL and
// the bytes written so far (over all connections).
func headServer(t *testing.T, write func(w io.Writer) error) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	written := new(atomic.Int64)
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadString('\n')
				if err != nil || line == "\r\n" {
					break
				}
			}
			_ = write(countWriter{c, written})
			c.Close()
		}
	}()
	return "http://" + ln.Addr().String(), written
}

type countWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// writeUpTo writes chunk again and again until max bytes or an error.
func writeUpTo(w io.Writer, chunk []byte, max int) error {
	for n := 0; n < max; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
	return nil
}

// TestDirectHeadLimit: a response head over maxResponseHead fails with
// errHeadTooLong as soon as the limit is reached, whether the limit falls
// at a line's end (where textproto's look for a continuation line used to
// consume the error) or inside one line (where bufio's ReadLine used to
// drop it), and the error does not quote the line.
func TestDirectHeadLimit(t *testing.T) {
	const serverMax = 64 << 20
	const status = "HTTP/1.1 200 OK\r\n"
	// The pad makes status+pad 64 bytes, so every 64-byte line after it
	// ends on a multiple of 64, 1 MiB among them.
	pad := "X-Pad: " + strings.Repeat("p", 64-len(status)-len("X-Pad: \r\n")) + "\r\n"
	line := "X-Filler: " + strings.Repeat("f", 64-len("X-Filler: \r\n")) + "\r\n"
	lines := []byte(strings.Repeat(line, 1024))
	big := bytes.Repeat([]byte("a"), 64<<10)
	for _, tc := range []struct {
		name  string
		start string
		chunk []byte
	}{
		{"short-lines-forever", status + pad, lines},
		{"one-64MB-header-line", status + "X-Big: ", big},
		{"one-64MB-line-no-colon", status + "X-Big", big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(status+pad) != 64 || len(line) != 64 {
				t.Fatalf("pad %d, line %d bytes: the alignment is off", len(status+pad), len(line))
			}
			url, written := headServer(t, func(w io.Writer) error {
				if _, err := io.WriteString(w, tc.start); err != nil {
					return err
				}
				return writeUpTo(w, tc.chunk, serverMax)
			})
			hc, _ := directClient(t, url)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", url+"/x", nil)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, err := hc.Do(req)
			runtime.ReadMemStats(&after)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("a %d-byte head was read: %d fields", written.Load(), len(resp.Header))
			}
			if !errors.Is(err, errHeadTooLong) {
				t.Fatalf("error %.300s, want errHeadTooLong", err)
			}
			if len(err.Error()) > 200 {
				t.Errorf("the error quotes %d bytes: %.300s", len(err.Error()), err)
			}
			if n := written.Load(); n >= serverMax {
				t.Errorf("the server wrote all of its %d bytes: the client read on past the limit", n)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("%d MiB allocated reading a head limited to 1 MiB", alloc>>20)
			}
		})
	}
}

// TestDirectIdleTimeout: a kept connection idle longer than
// idleTimeoutDirect is closed, not used (one dropped silently would take
// the request and wait for an answer that never comes); one idle less
// long is used.
func TestDirectIdleTimeout(t *testing.T) {
	var opened, closed atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			opened.Add(1)
		case http.StateClosed:
			closed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	hc, dt := directClient(t, srv.URL)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dt.now = func() time.Time { return now }
	for i, step := range []struct {
		idle  time.Duration
		conns int32
	}{{0, 1}, {89 * time.Second, 1}, {91 * time.Second, 2}, {idleTimeoutDirect, 2}} {
		now = now.Add(step.idle)
		if got := exchange(t, hc, "GET", srv.URL+"/x"); !strings.HasSuffix(got, "\nok") {
			t.Fatal(got)
		}
		if n := opened.Load(); n != step.conns {
			t.Fatalf("request %d after %v idle: %d connections, want %d", i, step.idle, n, step.conns)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); closed.Load() < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the connection idle too long was never closed")
		}
	}
}

// TestDirectHostNotCleaned: a base URL whose host net/http's transport
// rewrites (an IPv6 zone it leaves out of the Host field, a name it
// punycodes) does not go direct.
func TestDirectHostNotCleaned(t *testing.T) {
	d := &net.Dialer{}
	for _, tc := range []struct {
		base   string
		direct bool
	}{
		{"http://[fe80::1%25eth0]:11434", false},
		{"http://bücher.example:11434", false},
		{"http://xn--bcher-kva.example:11434", true},
		{"http://[::1]:11434", true},
		{"http://127.0.0.1:11434", true},
	} {
		if got := newDirect(tc.base, d.DialContext, netTransport(d, true)) != nil; got != tc.direct {
			t.Errorf("%s: direct %v, want %v", tc.base, got, tc.direct)
		}
	}
	if _, ok := transport("http://[fe80::1%25eth0]:11434", time.Second).(*http.Transport); !ok {
		t.Error("a base URL with an IPv6 zone does not use net/http's transport")
	}
}

// TestDirectEnvOff: OLLY_HTTP_DIRECT=0 gives net/http's transport.
func TestDirectEnvOff(t *testing.T) {
	const base = "http://127.0.0.1:11434"
	if _, ok := transport(base, time.Second).(*directTransport); !ok {
		t.Fatalf("%T for %s, want the direct transport", transport(base, time.Second), base)
	}
	t.Setenv(directEnv, "0")
	if _, ok := transport(base, time.Second).(*http.Transport); !ok {
		t.Fatalf("%T with %s=0, want net/http's transport", transport(base, time.Second), directEnv)
	}
}

// breakConn fails its next Write before writing anything once armed, and
// closes the connection, as a reused connection the server had reset
// does.
type breakConn struct {
	net.Conn
	armed *atomic.Bool
}

func (c breakConn) Write(p []byte) (int, error) {
	if c.armed.Load() {
		_ = c.Conn.Close()
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	return c.Conn.Write(p)
}

// TestDirectRetriesUnwrittenRequest: a POST whose reused connection fails
// before any of it was written is sent again on a new connection; one
// failing so on a new connection is an error, not sent again.
func TestDirectRetriesUnwrittenRequest(t *testing.T) {
	var served atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		served.Add(1)
		fmt.Fprint(w, "ok")
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	var dials atomic.Int32
	var armed atomic.Bool
	d := &net.Dialer{Timeout: 5 * time.Second}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return breakConn{Conn: c, armed: &armed}, nil
	}
	dt := newDirect(srv.URL, dial, netTransport(d, true))
	hc := &http.Client{Transport: dt}
	defer hc.CloseIdleConnections()
	if got := exchange(t, hc, "POST", srv.URL+"/api/chat"); !strings.HasSuffix(got, "\nok") {
		t.Fatal(got)
	}
	// The kept connection's next write fails; the new one's does not.
	armed.Store(true)
	dialDisarms := dial
	dt.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		armed.Store(false)
		return dialDisarms(ctx, network, addr)
	}
	if got := exchange(t, hc, "POST", srv.URL+"/api/chat"); !strings.HasSuffix(got, "\nok") {
		t.Fatal(got)
	}
	if d, c, s := dials.Load(), conns.Load(), served.Load(); d != 2 || c != 2 || s != 2 {
		t.Fatalf("%d dials, %d connections, %d requests served; want 2 each", d, c, s)
	}
	// Every write fails: one new connection, then the error.
	hc.CloseIdleConnections()
	dt.dial = dial
	armed.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/chat", nil)
	setBody(req, Pieces{[]byte("{}")})
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("a request whose every write fails succeeded")
	} else if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("error %v, want the write's", err)
	}
	if d := dials.Load(); d != 3 {
		t.Fatalf("%d dials, want 3 (a failed write on a new connection is not sent again)", d)
	}
}

// TestDirectAnswerBeforeBodyWritten: a server that answers (413) and
// closes without reading a large body, as net/http's server does, gives
// its answer, not the failed write's error.
func TestDirectAnswerBeforeBodyWritten(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
	}))
	defer srv.Close()
	hc, _ := directClient(t, srv.URL)
	mib := bytes.Repeat([]byte("x"), 1<<20)
	body := make(Pieces, 64)
	for i := range body {
		body[i] = mib
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/chat", nil)
	setBody(req, body)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("a 64 MiB body the server refused: %v, want its 413", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !resp.Close {
		t.Fatalf("status %d, close %v; want 413 and the connection closed", resp.StatusCode, resp.Close)
	}
}

// TestDirect1xxLimit: five informational responses before the answer are
// skipped (as net/http's transport does), a sixth is an error (older
// net/http's max1xxResponses; Go 1.26's has no count, only the head size).
func TestDirect1xxLimit(t *testing.T) {
	const hint = "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
	// rawOnce serves one connection at a time: none is kept.
	const ok = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
	for _, n := range []int{5, 6} {
		url := rawOnce(t, func(_, _ int) string { return strings.Repeat(hint, n) + ok })
		hc, _ := directClient(t, url)
		nt := netTransport(&net.Dialer{}, true)
		defer nt.CloseIdleConnections()
		for _, c := range []struct {
			name string
			rt   http.RoundTripper
		}{{"direct", hc.Transport}, {"net/http", nt}} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			req, _ := http.NewRequestWithContext(ctx, "GET", url+"/x", nil)
			resp, err := c.rt.RoundTrip(req)
			cancel()
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "ok" {
					t.Fatalf("%s, %d hints: body %q", c.name, n, b)
				}
			}
			// Go 1.26's net/http bounds 1xx responses only by the head's
			// size (older ones at 5): it must read 5; the direct transport
			// must read 5 and refuse 6.
			if c.name == "direct" && (err == nil) != (n <= 5) || err != nil && n <= 5 {
				t.Errorf("%s, %d informational responses: error %v", c.name, n, err)
			}
		}
	}
}
