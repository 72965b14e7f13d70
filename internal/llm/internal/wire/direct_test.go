package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// directClient is an HTTP client whose transport is the direct one for
// base (which it must take), net/http's for anything else.
func directClient(t testing.TB, base string) (*http.Client, *directTransport) {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	dt := newDirect(base, d.DialContext, netTransport(d, true))
	if dt == nil {
		t.Fatalf("no direct transport for %s", base)
	}
	hc := &http.Client{Transport: dt}
	t.Cleanup(hc.CloseIdleConnections)
	return hc, dt
}

// countConns counts the connections srv accepts.
func countConns(srv *httptest.Server) *atomic.Int32 {
	n := new(atomic.Int32)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	return n
}

// directCases are responses of every framing net/http's server writes:
// what the direct transport must read as net/http's transport does.
var directCases = []struct {
	name    string
	method  string
	handler http.HandlerFunc
}{
	{"content-length", "POST", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"got":%d,"ua":%q,"ct":%q}`, len(b), r.UserAgent(), r.Header.Get("Content-Type"))
	}},
	{"ndjson-streamed", "POST", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		for i := range 5 {
			fmt.Fprintf(w, `{"n":%d,"done":%v}`+"\n", i, i == 4)
			w.(http.Flusher).Flush()
		}
	}},
	{"sse-streamed", "POST", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"i\":%d}\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}},
	{"big-chunked", "POST", func(w http.ResponseWriter, r *http.Request) {
		for i := range 300 {
			fmt.Fprintf(w, "%05d %s\n", i, strings.Repeat("x", 1000))
			if i%7 == 0 {
				w.(http.Flusher).Flush()
			}
		}
	}},
	{"error-with-body", "POST", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"model 'x' not found"}`, http.StatusNotFound)
	}},
	{"server-error", "POST", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, `{"error":"boom"}`)
	}},
	{"early-hints-1xx", "GET", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</x>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "after hints")
	}},
	{"connection-close", "GET", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		fmt.Fprint(w, "bye")
	}},
	{"no-content", "DELETE", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}},
	{"head", "HEAD", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "42")
	}},
	{"trailer", "GET", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Sum")
		fmt.Fprint(w, "body")
		w.(http.Flusher).Flush()
		w.Header().Set("X-Sum", "7")
	}},
}

// exchange makes one request of each client and returns what a caller
// sees: status, a header, the body and the trailer.
func exchange(t *testing.T, hc *http.Client, method, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if method == "POST" {
		setBody(req, Pieces{[]byte(`{"model":`), []byte(`"m"}`)})
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "olly-test")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return fmt.Sprintf("%d %q cl=%d close=%v ct=%q link=%q err=%v trailer=%v\n%s", resp.StatusCode, resp.Status, resp.ContentLength,
		resp.Close, resp.Header.Get("Content-Type"), resp.Header.Get("Link"), err, resp.Trailer, b)
}

// TestDirectReadsAsNetHTTP: every framing, status and 1xx response reads
// the same through the direct transport as through net/http's, twice in a
// row (the second time on the kept connection where the first allows).
func TestDirectReadsAsNetHTTP(t *testing.T) {
	for _, tc := range directCases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(tc.handler)
			conns := countConns(srv)
			srv.Start()
			defer srv.Close()
			hc, _ := directClient(t, srv.URL)
			nc := &http.Client{Transport: netTransport(&net.Dialer{}, true)}
			defer nc.CloseIdleConnections()
			for i := range 2 {
				want := exchange(t, nc, tc.method, srv.URL+"/x")
				got := exchange(t, hc, tc.method, srv.URL+"/x")
				if got != want {
					t.Fatalf("request %d: direct\n%s\nnet/http\n%s", i, got, want)
				}
			}
			if tc.name != "connection-close" && conns.Load() != 2 {
				t.Errorf("%d connections for two requests of each transport, want one each", conns.Load())
			}
		})
	}
}

// TestDirectKeepsOneConnection: sequential requests share one connection,
// and the liveness peek lets a connection the server closed be replaced
// without a failed request.
func TestDirectKeepsOneConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, "ok")
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	hc, _ := directClient(t, srv.URL)
	for range 20 {
		if got := exchange(t, hc, "POST", srv.URL+"/api/chat"); !strings.HasSuffix(got, "\nok") {
			t.Fatal(got)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 20 requests, want 1", n)
	}
	// The server closes its idle connections (as llama.cpp's does after
	// its keep-alive timeout): the next POST must go on a new one.
	srv.Config.SetKeepAlivesEnabled(false)
	time.Sleep(50 * time.Millisecond)
	srv.Config.SetKeepAlivesEnabled(true)
	if got := exchange(t, hc, "POST", srv.URL+"/api/chat"); !strings.HasSuffix(got, "\nok") {
		t.Fatal(got)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want a second one after the server closed the first", n)
	}
}

// TestDirectCancelClosesConnection: cancelling a request whose stream is
// open ends a blocked body read at once with the context's error, and
// the connection is closed, not kept.
func TestDirectCancelClosesConnection(t *testing.T) {
	release := make(chan struct{})
	closed := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "{\"first\":true}\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			closed <- struct{}{}
		case <-release:
		}
	}))
	srv.Start()
	defer srv.Close()
	defer close(release)
	hc, dt := directClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/stream", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	if n, err := resp.Body.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "first") {
		t.Fatalf("first read %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("read after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read did not return after cancel")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if len(dt.idle) != 0 {
		t.Fatalf("%d idle connections kept after a cancelled request", len(dt.idle))
	}
}

// rawOnce serves each connection with answer(i, request head) for its
// requests (i counts the requests on that connection) until answer
// returns "" (close without answering).
func rawOnce(t *testing.T, answer func(conn, i int) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for k := 0; ; k++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 64<<10)
			for i := 0; ; i++ {
				n, err := c.Read(buf)
				if err != nil || !strings.Contains(string(buf[:n]), "\r\n\r\n") {
					break
				}
				a := answer(k, i)
				if a == "" {
					break
				}
				_, _ = io.WriteString(c, a)
			}
			c.Close()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestDirectReusedConnectionClosedMidRequest: a reused connection that
// the server closes after reading a request, without answering, is a
// failure for a POST (it may have been acted on: net/http's rule), and is
// sent again on a new connection for a GET.
func TestDirectReusedConnectionClosedMidRequest(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	// Every connection answers its first request and drops its second.
	url := rawOnce(t, func(_, i int) string {
		if i == 0 {
			return ok
		}
		return ""
	})
	for _, tc := range []struct {
		method string
		fails  bool
	}{{"POST", true}, {"GET", false}} {
		hc, _ := directClient(t, url)
		if got := exchange(t, hc, tc.method, url+"/x"); !strings.HasSuffix(got, "\nok") {
			t.Fatal(got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, tc.method, url+"/x", nil)
		if tc.method == "POST" {
			setBody(req, Pieces{[]byte("{}")})
		}
		resp, err := hc.Do(req)
		cancel()
		if (err != nil) != tc.fails {
			t.Fatalf("%s on a connection dropped mid-request: err %v, want failure %v", tc.method, err, tc.fails)
		}
		if err == nil {
			resp.Body.Close()
		}
	}
}

// TestDirectTakesOnlyPlainRequests: requests the direct transport does not
// take go to net/http's.
func TestDirectTakesOnlyPlainRequests(t *testing.T) {
	dt := newDirect("http://127.0.0.1:11434", (&net.Dialer{}).DialContext, netTransport(&net.Dialer{}, true))
	mk := func(method, url string, body io.Reader, h ...string) *http.Request {
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		return req
	}
	pieces := mk("POST", "http://127.0.0.1:11434/api/chat", nil)
	setBody(pieces, Pieces{[]byte("{}")})
	for _, tc := range []struct {
		req  *http.Request
		want bool
	}{
		{mk("GET", "http://127.0.0.1:11434/api/tags", nil), true},
		{pieces, true},
		{mk("POST", "http://127.0.0.1:11434/api/chat", strings.NewReader("{}")), false},
		{mk("GET", "http://127.0.0.1:8080/api/tags", nil), false},
		{mk("GET", "https://127.0.0.1:11434/api/tags", nil), false},
		{mk("GET", "http://127.0.0.1:11434/x", nil, "Expect", "100-continue"), false},
		{mk("GET", "http://127.0.0.1:11434/x", nil, "Upgrade", "websocket"), false},
	} {
		if _, got := dt.takes(tc.req); got != tc.want {
			t.Errorf("%s %s %v: taken %v, want %v", tc.req.Method, tc.req.URL, tc.req.Header, got, tc.want)
		}
	}
	proxied := netTransport(&net.Dialer{}, true)
	proxied.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.invalid:3128"})
	if newDirect("http://example.invalid:11434", (&net.Dialer{}).DialContext, proxied) != nil {
		t.Error("a proxied base URL goes direct")
	}
	for _, h := range [][2]string{{"X-Bad", "a\r\nInjected: 1"}, {"Bad Name", "x"}} {
		req := mk("GET", "http://127.0.0.1:11434/x", nil)
		req.Header[h[0]] = []string{h[1]}
		if _, ok := appendHead(nil, req, 0); ok {
			t.Errorf("header %q: %q written", h[0], h[1])
		}
	}
}
