package wire

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

// directTransport sends the requests of a plain http:// base URL itself,
// on connections it keeps, in the goroutine that makes the request: it
// writes the head and the body in one writev, then reads the response
// with net/http's own parser (http.ReadResponse) from the connection. The
// response body is read from the connection by whoever reads it.
//
// net/http's transport does the same exchange through two goroutines per
// connection (a write loop and a read loop) and channel hand-offs between
// them and the caller: four goroutine wake-ups per request, each on a
// two-core machine often a thread's wake-up (futex) too, which made the
// transport's share of a request's CPU larger than the parsing
// (docs/performance.md "The model round trip (session 29, http29)").
//
// Only what olly's clients send goes direct: a request to the base URL's
// host, with no body or a Pieces body, valid header fields and no
// Expect, Upgrade or trailer. Anything else is given to fallback, the
// net/http transport, as are https and proxied base URLs (never built
// with a directTransport). The rules are net/http's: 1xx responses other
// than 101 are skipped, a response is reused only once its body was read
// to the end and neither side asked to close, a request on a reused
// connection that the server had closed is sent again on a new one only
// when none of it was written, or when it is replayable (a GET, HEAD,
// OPTIONS or TRACE without a body, as net/http's isReplayable) and none
// of the response arrived, and a cancelled context closes the connection.
type directTransport struct {
	host     string // the base URL's host:port
	urlHost  string // the base URL's host as written (u.Host)
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	fallback http.RoundTripper

	// idleTimeout is how long a connection may stay idle and still be
	// used (net/http's IdleConnTimeout); now is the clock (tests set it).
	idleTimeout time.Duration
	now         func() time.Time

	mu   sync.Mutex
	idle []*dconn // most recently used last
}

// maxIdleDirect is how many idle connections are kept (net/http's
// DefaultMaxIdleConnsPerHost).
const maxIdleDirect = 2

// maxResponseHead bounds the heads (status line and header fields) of
// one response, 1xx responses included: a server sending header fields
// forever is an error, not a hang (net/http's default is 10 MB).
const maxResponseHead = 1 << 20

// max1xx is how many informational responses one request may get
// (net/http's max1xxResponses).
const max1xx = 5

// idleTimeoutDirect is how long a kept connection may stay idle before it
// is closed instead of used (net/http's DefaultTransport IdleConnTimeout):
// a connection dropped silently (a laptop's sleep, a Wi-Fi or VPN change,
// a NAT's expiry) still looks open to the peek and would take a request
// that then waits for an answer until the response timeout.
const idleTimeoutDirect = 90 * time.Second

// newDirect builds the transport for base, a plain http:// URL, or nil
// when base is unusual (fallback's proxy applies to it, it names no
// host, its host has an IPv6 zone or non-ASCII characters, which
// net/http's transport cleans: drops the zone from the Host field,
// punycodes a name): fallback is then the transport to use.
func newDirect(base string, dial func(ctx context.Context, network, addr string) (net.Conn, error), fallback *http.Transport) *directTransport {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || !plainHost(u.Host) {
		return nil
	}
	if fallback.Proxy != nil {
		if p, err := fallback.Proxy(&http.Request{URL: u}); err != nil || p != nil {
			return nil
		}
	}
	return &directTransport{host: hostPort(u), urlHost: u.Host, dial: dial, fallback: fallback, idleTimeout: idleTimeoutDirect, now: time.Now}
}

// plainHost reports whether host is written on the wire as it is in the
// URL: ASCII, without an IPv6 zone ('%').
func plainHost(host string) bool {
	for i := range len(host) {
		if host[i] == '%' || host[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hostPort is u's host with the port net/http would connect to.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// RoundTrip sends req directly when it is one of olly's plain requests,
// else through the fallback transport.
func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, ok := t.takes(req)
	if !ok {
		return t.fallback.RoundTrip(req)
	}
	head, ok := appendHead(make([]byte, 0, headSize(req)), req, body.Len())
	if !ok {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	for {
		c, err := t.conn(ctx)
		if err != nil {
			return nil, err
		}
		resp, retry, err := c.exchange(ctx, req, head, body)
		if err == nil {
			return resp, nil
		}
		if !retry || ctx.Err() != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
	}
}

// takes reports whether req goes direct, with its body's pieces.
func (t *directTransport) takes(req *http.Request) (Pieces, bool) {
	if req.URL == nil || req.URL.Scheme != "http" || (req.URL.Host != t.urlHost && hostPort(req.URL) != t.host) || req.URL.User != nil ||
		(req.Host != "" && req.Host != req.URL.Host) || len(req.Trailer) > 0 || req.Close ||
		req.Header.Get("Expect") != "" || req.Header.Get("Upgrade") != "" || len(req.TransferEncoding) > 0 {
		return nil, false
	}
	switch b := req.Body.(type) {
	case nil:
		return nil, req.ContentLength == 0
	case *piecesReader:
		if b.off != 0 || int64(b.remaining()) != req.ContentLength {
			return nil, false
		}
		return b.p, true
	}
	if req.Body == http.NoBody {
		return nil, req.ContentLength == 0
	}
	return nil, false
}

// conn returns an idle connection that is still open and was not idle
// too long, or a new one.
func (t *directTransport) conn(ctx context.Context) (*dconn, error) {
	for {
		t.mu.Lock()
		n := len(t.idle)
		if n == 0 {
			t.mu.Unlock()
			break
		}
		c := t.idle[n-1]
		t.idle[n-1] = nil
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		if t.now().Sub(c.idleAt) <= t.idleTimeout && peerStillOpen(c.raw) {
			c.reused = true
			return c, nil
		}
		_ = c.Close()
	}
	nc, err := t.dial(ctx, "tcp", t.host)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	c := &dconn{Conn: nc, t: t, limit: math.MaxInt64, raw: rawConn(nc)}
	c.br = bufio.NewReaderSize(c, 4<<10)
	return c, nil
}

// put keeps c for the next request, or closes it when enough are kept.
func (t *directTransport) put(c *dconn) {
	c.idleAt = t.now()
	t.mu.Lock()
	if len(t.idle) < maxIdleDirect {
		t.idle = append(t.idle, c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// CloseIdleConnections closes the kept connections (and the fallback's).
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		_ = c.Close()
	}
	if ci, ok := t.fallback.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// appendHead appends req's head as net/http writes it (without
// Accept-Encoding: olly reads no compressed bodies), announcing a body of
// n bytes. It reports false when a header field is not valid, which
// net/http then refuses.
func appendHead(b []byte, req *http.Request, n int) ([]byte, bool) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if !httpguts.ValidHeaderFieldName(method) {
		return nil, false
	}
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, req.URL.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, req.URL.Host...)
	ua := "Go-http-client/1.1"
	if v, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(v) > 0 {
			ua = v[0]
		}
	}
	if ua != "" {
		b = append(b, "\r\nUser-Agent: "...)
		b = append(b, ua...)
	}
	if n > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = append(b, "\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	for k, vs := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, false
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, false
			}
		}
	}
	var kbuf [16]string
	keys := kbuf[:0]
	for k := range req.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "User-Agent" || k == "Host" || k == "Content-Length" {
			continue
		}
		for _, v := range req.Header[k] {
			b = append(b, "\r\n"...)
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, textproto.TrimString(v)...)
		}
	}
	return append(b, "\r\n\r\n"...), true
}

// headSize is about what appendHead writes for req, so that it grows the
// head once at most.
func headSize(req *http.Request) int {
	n := len(req.Method) + len(req.URL.Path) + len(req.URL.RawQuery) + len(req.URL.Host) + 96
	for k, vs := range req.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// dconn is one connection of a directTransport.
type dconn struct {
	net.Conn
	t      *directTransport
	br     *bufio.Reader
	reused bool
	idleAt time.Time       // when it was last kept (put)
	raw    syscall.RawConn // for the liveness peek; nil: none
	read   int64           // bytes read from the connection in this exchange
	limit  int64           // what may still be read: a response head's rest, else math.MaxInt64
	iov    net.Buffers
}

var errHeadTooLong = errors.New("the server's response head is longer than " + strconv.Itoa(maxResponseHead>>20) + " MiB")

// Read reads from the connection, counting, within the limit (as
// net/http's persistConn.Read): once it is used up every Read fails with
// errHeadTooLong and returns no data, so an error a reader drops (bufio's
// ReadLine does when it has a line to return, textproto's skipSpace
// consumes one) is returned again by the next Read.
func (c *dconn) Read(p []byte) (int, error) {
	if c.limit <= 0 {
		return 0, errHeadTooLong
	}
	if int64(len(p)) > c.limit {
		p = p[:c.limit]
	}
	n, err := c.Conn.Read(p)
	c.read += int64(n)
	c.limit -= int64(n)
	return n, err
}

// exchange writes the request and reads the response head. retry says
// that the request may be sent again on a new connection (see
// directTransport); c is closed then and on any error.
func (c *dconn) exchange(ctx context.Context, req *http.Request, head []byte, body Pieces) (resp *http.Response, retry bool, err error) {
	stop := context.AfterFunc(ctx, func() { _ = c.Conn.Close() })
	fail := func(err error, retry bool) (*http.Response, bool, error) {
		stop()
		_ = c.Close()
		return nil, retry, err
	}
	c.read = 0
	iov := append(c.iov[:0], head)
	iov = append(iov, body...)
	all := iov
	n, werr := iov.WriteTo(c.Conn)
	clear(all)
	c.iov = all[:0]
	if werr != nil {
		if n == 0 {
			return fail(werr, c.reused)
		}
		// The server may have answered and closed before reading the
		// whole body (a 413): its answer is the better error.
		_ = c.Conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if resp, err := c.readHead(req); err == nil {
			_ = c.Conn.SetReadDeadline(time.Time{})
			resp.Close = true
			return c.withBody(ctx, resp, stop), false, nil
		}
		return fail(werr, false)
	}
	resp, err = c.readHead(req)
	if err != nil {
		nothing := c.read == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err))
		return fail(err, c.reused && nothing && replayable(req))
	}
	return c.withBody(ctx, resp, stop), false, nil
}

// readHead reads the final response's head, skipping 1xx responses other
// than 101, which (as any protocol switch) this transport does not do.
func (c *dconn) readHead(req *http.Request) (*http.Response, error) {
	c.limit = maxResponseHead
	defer func() { c.limit = math.MaxInt64 }()
	for range max1xx + 1 {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			if c.limit <= 0 {
				// The parser's error may quote the long line read so far.
				return nil, errHeadTooLong
			}
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			return nil, errors.New("the server switched protocols (101), which olly never asks for")
		case resp.StatusCode >= 100 && resp.StatusCode < 200:
			continue
		}
		return resp, nil
	}
	return nil, errors.New("the server sent more than " + strconv.Itoa(max1xx) + " informational (1xx) responses")
}

// withBody gives resp a body that hands c back once read to its end.
func (c *dconn) withBody(ctx context.Context, resp *http.Response, stop func() bool) *http.Response {
	resp.Body = &dbody{rc: resp.Body, c: c, ctx: ctx, stop: stop, keep: !resp.Close}
	return resp
}

// dbody is a direct response's body. At its end the connection is kept
// for the next request (if the response allows it and the context did
// not close it); closed before its end, or on an error, it is closed.
type dbody struct {
	rc   io.ReadCloser
	c    *dconn
	ctx  context.Context
	stop func() bool
	keep bool
	once sync.Once
}

func (b *dbody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	switch {
	case err == nil:
	case err == io.EOF:
		b.release(true)
	default:
		b.release(false)
		if b.ctx.Err() != nil {
			err = b.ctx.Err()
		}
	}
	return n, err
}

// Close closes the connection unless the body was read to its end; a
// Read blocked in another goroutine returns.
func (b *dbody) Close() error {
	b.release(false)
	return b.rc.Close()
}

// release hands the connection back (atEnd: the body was read to its
// end) or closes it, once.
func (b *dbody) release(atEnd bool) {
	b.once.Do(func() {
		if atEnd && b.stop() && b.keep && b.c.br.Buffered() == 0 {
			b.c.reused = false
			b.c.t.put(b.c)
			return
		}
		b.stop()
		_ = b.c.Close()
	})
}

// replayable is net/http's Request.isReplayable.
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, a := req.Header["Idempotency-Key"]
	_, b := req.Header["X-Idempotency-Key"]
	return a || b
}
