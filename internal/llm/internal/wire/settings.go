package wire

import (
	"context"
	"net"
	"net/http"
	"os"
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
		set.HTTP = &http.Client{Transport: transport(root, set.Timeouts.Connect)}
	}
	return Client{BaseURL: root, Dialect: spec.Dialect, Settings: set, ParseError: spec.ParseError, noDrain: new(atomic.Bool)}, nil
}

// transport is the default transport for root, with a bound on
// connecting: for a plain http:// base URL without a proxy the direct
// transport (direct.go), which gives what it does not take to net/http's
// (netTransport); else net/http's.
func transport(root string, connect time.Duration) http.RoundTripper {
	plain := strings.HasPrefix(root, "http://")
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	t := netTransport(d, plain)
	if !plain || os.Getenv(directEnv) == "0" {
		return t
	}
	if dt := newDirect(root, d.DialContext, t); dt != nil {
		return dt
	}
	return t
}

// directEnv set to 0 turns the direct transport off: every request then
// goes through net/http's (for comparing the two, or should a server need
// what only net/http does).
const directEnv = "OLLY_HTTP_DIRECT"

// netTransport is net/http's default transport dialling with d, whose
// connections send a request in one write (reqConn) when plain. Over TLS
// the transport writes to a tls.Conn, which writes its own records to the
// connection: there is no head and body for reqConn to join, so the
// connection is left as dialled.
func netTransport(d *net.Dialer, plain bool) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
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
