package wire

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawServer accepts one connection and answers each request 200 "ok"; it
// reports, per request, what its first read returned (the server's read
// buffer holds any request of these tests whole) and the whole request.
func rawServer(t *testing.T) (url string, first, whole chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	first, whole = make(chan []byte, 8), make(chan []byte, 8)
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serveRaw(c, first, whole)
	}()
	return "http://" + ln.Addr().String(), first, whole
}

func serveRaw(c net.Conn, first, whole chan<- []byte) {
	buf := make([]byte, 1<<20)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		got := append([]byte(nil), buf[:n]...)
		first <- got
		req := append([]byte(nil), got...)
		for !complete(req) {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			req = append(req, buf[:n]...)
		}
		whole <- req
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
	}
}

// complete reports whether req holds a whole request (head and body).
func complete(req []byte) bool {
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(req)))
	if err != nil {
		return false
	}
	_, err = io.ReadAll(r.Body)
	return err == nil
}

// TestRequestHeadAndBodyInOneWrite: the transport's connection sends a
// request's head and its Pieces body in one write, so the server's first
// read has all of it, and the bytes are the request (the body the pieces
// joined).
func TestRequestHeadAndBodyInOneWrite(t *testing.T) {
	url, first, whole := rawServer(t)
	hc := &http.Client{Transport: netTransport(&net.Dialer{Timeout: time.Second}, true)}
	defer hc.CloseIdleConnections()
	for i, n := range []int{1, 40, 400} {
		var body Pieces
		for k := range n {
			body = append(body, fmt.Appendf(nil, `{"piece":%d,"pad":%q},`, k, strings.Repeat("x", k%17)))
		}
		resp := postPieces(t, hc, url, body)
		if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
			t.Fatalf("request %d: response %q", i, b)
		}
		resp.Body.Close()
		got, all := <-first, <-whole
		if !bytes.Equal(got, all) {
			t.Errorf("request %d (%d pieces): the first read had %d of the request's %d bytes:\n%q", i, n, len(got), len(all), got)
		}
		head, sent, ok := bytes.Cut(all, []byte("\r\n\r\n"))
		if !ok || !bytes.HasPrefix(head, []byte("POST /api/chat HTTP/1.1\r\n")) || !bytes.Contains(head, fmt.Appendf(nil, "\r\nContent-Length: %d\r\n", body.Len())) {
			t.Fatalf("request %d: head %q", i, head)
		}
		if !bytes.Equal(sent, body.Bytes()) {
			t.Fatalf("request %d: body %q, want %q", i, sent, body.Bytes())
		}
	}
}

// TestRequestWithoutBodyNotHeld: a request without a body goes out as the
// transport writes it.
func TestRequestWithoutBodyNotHeld(t *testing.T) {
	url, first, whole := rawServer(t)
	hc := &http.Client{Transport: netTransport(&net.Dialer{Timeout: time.Second}, true)}
	defer hc.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/tags", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	<-first
	if all := <-whole; !bytes.HasPrefix(all, []byte("GET /api/tags HTTP/1.1\r\n")) {
		t.Fatalf("request %q", all)
	}
}

func TestAnnouncesBody(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 12\r\n\r\n", true},
		{"POST /a HTTP/1.1\r\nContent-Length: 1\r\nAccept: x\r\n\r\n", true},
		{"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", false},
		{"GET /a HTTP/1.1\r\nHost: h\r\n\r\n", false},
		{"POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", false},           // head and body in one write
		{"POST /a HTTP/1.1\r\nContent-Length: 2\r\n", false},                 // a part of a head
		{"POST /a HTTP/1.1\r\nContent-Length: x\r\n\r\n", false},             // not a number
		{"POST /a HTTP/1.1\r\nContent-Length: -3\r\n\r\n", false},            // negative
		{"POST /a HTTP/1.1\r\nX: 1\r\n\r\nContent-Length: 5\r\n\r\n", false}, // after the head
		{"", false},
	} {
		if got := announcesBody([]byte(tc.head)); got != tc.want {
			t.Errorf("announcesBody(%q) = %v, want %v", tc.head, got, tc.want)
		}
	}
}

func FuzzAnnouncesBody(f *testing.F) {
	f.Add([]byte("POST /a HTTP/1.1\r\nContent-Length: 12\r\n\r\n"))
	f.Add([]byte("\r\nContent-Length: \r\n\r\n"))
	f.Add([]byte("\r\nContent-Length: 9\r\r\n\r\n"))
	f.Fuzz(func(t *testing.T, p []byte) {
		if announcesBody(p) && !bytes.HasSuffix(p, []byte("\r\n\r\n")) {
			t.Fatalf("announcesBody(%q) without the head's end", p)
		}
	})
}

// recordConn records what is written to it, one entry per Write.
type recordConn struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (c *recordConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes = append(c.writes, p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// TestPiecesBodyHandedToConnection: through net/http's transport (which
// wraps a body of its own), a Pieces body reaches the connection as its
// pieces, not copied through a buffer, right after its head: the writes a
// socket gets in one writev (on a connection that is not a socket, as
// here, one Write each).
func TestPiecesBodyHandedToConnection(t *testing.T) {
	url, _, whole := rawServer(t)
	rec := &recordConn{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		rec.Conn = c
		return &reqConn{Conn: rec}, nil
	}}
	hc := &http.Client{Transport: tr}
	defer hc.CloseIdleConnections()
	body := Pieces{[]byte(`{"a":"`), bytes.Repeat([]byte("x"), 100<<10), []byte(`"}`)}
	postPieces(t, hc, url, body).Body.Close()
	all := <-whole
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.writes) != 1+len(body) || !bytes.HasSuffix(all, body.Bytes()) {
		t.Fatalf("%d writes for a head and %d pieces; the server got %d bytes", len(rec.writes), len(body), len(all))
	}
	if !bytes.HasPrefix(rec.writes[0], []byte("POST /api/chat HTTP/1.1\r\n")) {
		t.Errorf("first write %q, want the head", rec.writes[0])
	}
	for i, p := range body {
		if w := rec.writes[1+i]; len(w) != len(p) || &w[0] != &p[0] {
			t.Errorf("write %d is not piece %d itself (%d bytes, want %d)", 1+i, i, len(w), len(p))
		}
	}
}

// TestTransportWrapsPlainConnectionsOnly: a plain http:// base URL's
// connections are reqConns; an https:// one's are left as dialled (the
// transport writes TLS records to them, never a head for reqConn to hold);
// a plain base URL's requests go direct, and what the direct transport does
// not take goes to that net/http transport.
func TestTransportWrapsPlainConnectionsOnly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	defer func() { ln.Close(); <-accepted }()
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, tc := range []struct {
		base string
		want bool
	}{{"http://127.0.0.1:11434", true}, {"https://example.invalid", false}} {
		c, err := NewClient[func(*Settings)](tc.base, Spec{Dialect: "test", Example: "http://localhost:11434"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var tr *http.Transport
		switch rt := c.Settings.HTTP.Transport.(type) {
		case *directTransport:
			if !tc.want {
				t.Fatalf("%s: the direct transport is used", tc.base)
			}
			tr = rt.fallback.(*http.Transport)
		case *http.Transport:
			tr = rt
		}
		conn, err := tr.DialContext(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, wrapped := conn.(*reqConn)
		conn.Close()
		if wrapped != tc.want {
			t.Errorf("%s: connection wrapped in reqConn = %v, want %v", tc.base, wrapped, tc.want)
		}
	}
}

// postPieces posts body to url's /api/chat through hc. A head held back and
// never sent would leave the server waiting: the deadline makes that a
// failure, not a hang.
func postPieces(t *testing.T, hc *http.Client, url string, body Pieces) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/chat", nil)
	if err != nil {
		t.Fatal(err)
	}
	setBody(req, body)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
