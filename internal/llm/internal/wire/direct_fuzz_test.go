package wire

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// pipeServer is a dial function whose connections are pipes to a server
// that reads one request head and answers with reply, then closes.
func pipeServer(reply []byte) func(context.Context, string, string) (net.Conn, error) {
	return func(context.Context, string, string) (net.Conn, error) {
		c, s := net.Pipe()
		go func() {
			defer s.Close()
			_ = s.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(s)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if line == "\r\n" {
					break
				}
			}
			_, _ = s.Write(reply)
		}()
		return c, nil
	}
}

// fuzzGet makes a GET through rt and returns what the caller sees, or
// the error's presence.
func fuzzGet(rt http.RoundTripper) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://fuzz.invalid:80/x", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return "", false
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return fmt.Sprintf("%d cl=%d te=%v close=%v h=%v err=%v trailer=%v body=%q", resp.StatusCode, resp.ContentLength,
		resp.TransferEncoding, resp.Close, resp.Header, err != nil, resp.Trailer, b), true
}

// FuzzDirectResponse: whatever a server answers, the direct transport
// neither panics nor hangs, and a response that net/http's transport reads
// reads the same: status, framing, header fields, body and trailer (the
// direct transport refuses a 101 and more than 5 informational
// responses, which net/http passes on or reads).
func FuzzDirectResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\n{\"done\":false,\"n\":12345}\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 404 Not Found\r\nContent-Length: 17\r\n\r\n{\"error\":\"nope\"}\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-A\r\n\r\n3\r\nabc\r\n0\r\nX-A: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"garbage\r\n\r\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		n1xx, switched := informational(reply)
		nt := netTransport(&net.Dialer{}, false)
		nt.DialContext = pipeServer(reply)
		nt.DisableKeepAlives = true
		dt := newDirect("http://fuzz.invalid:80", pipeServer(reply), nt)
		defer dt.CloseIdleConnections()
		got, gok := fuzzGet(directOnly{dt})
		want, wok := fuzzGet(nt)
		if !wok || switched || n1xx > max1xx {
			return // net/http refused it, or a case the direct transport refuses on purpose
		}
		if !gok {
			t.Fatalf("net/http read\n%s\nthe direct transport failed", want)
		}
		if got != want {
			t.Fatalf("direct\n%s\nnet/http\n%s", got, want)
		}
	})
}

// informational counts the 1xx responses reply begins with, as net/http
// reads them, and reports whether one is a 101. (Counting "HTTP/1.1 1" in
// the bytes missed a 101 under any other version, "HTTP/0.0 101", which
// net/http reads too.)
func informational(reply []byte) (n int, switched bool) {
	br := bufio.NewReader(bytes.NewReader(reply))
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode < 100 || resp.StatusCode > 199 {
			return n, false
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return n, true
		}
		n++
	}
}

// directOnly is a directTransport that must not fall back.
type directOnly struct{ dt *directTransport }

func (d directOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, ok := d.dt.takes(req); !ok {
		return nil, fmt.Errorf("not taken")
	}
	return d.dt.RoundTrip(req)
}
