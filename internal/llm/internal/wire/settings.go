package wire

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// DefaultUserAgent is the User-Agent both clients send unless told
// otherwise.
const DefaultUserAgent = "olly"

// Settings are what the clients' options set; both dialects take the same
// ones, under their own option names.
type Settings struct {
	// HTTP is the HTTP client; nil means a new one without overall
	// timeout, because a streamed answer may legitimately take many
	// minutes (the context cancels instead).
	HTTP *http.Client
	// Token is sent as "Authorization: Bearer <token>" when not empty.
	Token     string
	UserAgent string
	Retry     llm.RetryPolicy
	// Timeouts bound the waits for the server (see llm.Timeouts). The
	// connect timeout applies only to the default HTTP client; the
	// response and idle timeouts apply to any.
	Timeouts llm.Timeouts
}

// Spec is what distinguishes one dialect's client when it is built.
type Spec struct {
	// Dialect is the name the client reports ("ollama", "openai").
	Dialect string
	// APISuffix is the API prefix a base URL may end in ("/api", "/v1");
	// it is dropped, since the client appends its own paths.
	APISuffix string
	// Example is a valid base URL, quoted when the given one is not.
	Example string
	// ParseError reads the dialect's error body (see Client.ParseError).
	ParseError func(body []byte) (ServerError, bool)
}

// NewClient builds the shared client for a dialect's New: it normalises
// baseURL (see NormalizeBaseURL) and applies opts over the defaults
// (DefaultUserAgent, llm.DefaultRetry()). O is the dialect package's own
// Option type, so that each package keeps its option names.
func NewClient[O ~func(*Settings)](baseURL string, spec Spec, opts []O) (Client, error) {
	root, err := NormalizeBaseURL(baseURL, spec.APISuffix, spec.Example)
	if err != nil {
		return Client{}, err
	}
	set := Settings{UserAgent: DefaultUserAgent, Retry: llm.DefaultRetry(), Timeouts: llm.DefaultTimeouts()}
	for _, o := range opts {
		o(&set)
	}
	if set.HTTP == nil {
		set.HTTP = &http.Client{Transport: transport(set.Timeouts.Connect, strings.HasPrefix(root, "http://"))}
	}
	return Client{BaseURL: root, Dialect: spec.Dialect, Settings: set, ParseError: spec.ParseError, noDrain: new(atomic.Bool)}, nil
}

// transport is the default transport with a bound on connecting, whose
// connections send a request in one write (reqConn) when plain: for a
// plain http:// base URL. Over TLS the transport writes to a tls.Conn,
// which writes its own records to the connection: there is no head and
// body for reqConn to join, so the connection is left as dialled.
func transport(connect time.Duration, plain bool) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil || !plain {
			return c, err
		}
		return &reqConn{Conn: c}, nil
	}
	// The write buffer keeps its default size: it only takes request
	// heads, a body goes from the transport to reqConn.ReadFrom.
	// A request with "Expect: 100-continue" (olly sends none) must not wait
	// for an answer to a head reqConn holds back: its body goes at once.
	t.ExpectContinueTimeout = 0
	return t
}
