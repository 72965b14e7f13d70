package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of a fetch.
const (
	// MaxRedirects bounds the redirects followed; each hop is dialled
	// through the guard again.
	MaxRedirects = 5
	// maxBody bounds the bytes read of a response.
	maxBody = 5 << 20
)

// userAgent names olly to the sites it reads.
const userAgent = "olly (web_fetch; +https://github.com/olly-agent/olly)"

// Fetcher fetches pages through a Guard.
type Fetcher struct {
	client *http.Client
}

// NewFetcher builds a fetcher whose every connection (redirects included)
// goes through g, bounded by timeout in all.
func NewFetcher(g *Guard, timeout time.Duration) *Fetcher {
	tr := &http.Transport{
		// No proxy: the guard must check the site's address, not a
		// proxy's (and a proxy would resolve names itself).
		Proxy:                  nil,
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 1 << 20,
		MaxIdleConns:           4,
		IdleConnTimeout:        30 * time.Second,
	}
	return &Fetcher{client: &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: checkRedirect}}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("stopped after %d redirects (at %s)", MaxRedirects, req.URL.Redacted())
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("a redirect to %s: only http and https are fetched", req.URL.Redacted())
	}
	return nil
}

// Close releases idle connections.
func (f *Fetcher) Close() { f.client.CloseIdleConnections() }

// Page is a fetched page as the model reads it.
type Page struct {
	// URL is where the page was found, after redirects.
	URL         string
	Status      int
	ContentType string
	Title       string
	// Markdown is the readable text: HTML converted, text kept as it is.
	Markdown string
	// Truncated: the body was longer than what was read.
	Truncated bool
}

// CheckURL parses a URL web_fetch accepts: absolute http or https.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q is not a URL: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%q: only http:// and https:// URLs are fetched", raw)
	case u.Hostname() == "":
		return nil, fmt.Errorf("%q has no host", raw)
	}
	return u, nil
}

// Fetch gets raw and converts it. Errors the model can act on (refused
// address, HTTP error, unreadable content) are returned as errors with a
// plain message.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (*Page, error) {
	u, err := CheckURL(raw)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.7, */*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		if r := (*Refusal)(nil); errors.As(err, &r) {
			return nil, r // the guard's sentence, not Go's wrapping
		}
		return nil, fmt.Errorf("fetch %s: %v", u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", u.Redacted(), err)
	}
	p := &Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if len(body) > maxBody {
		body, p.Truncated = body[:maxBody], true
	}
	if err := p.convert(body, resp.Request.URL); err != nil {
		return nil, err
	}
	return p, nil
}

// convert fills Markdown from body by content type.
func (p *Page) convert(body []byte, base *url.URL) error {
	mt, _, _ := mime.ParseMediaType(p.ContentType)
	if mt == "" {
		mt = http.DetectContentType(body)
		mt, _, _ = mime.ParseMediaType(mt)
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		title, md, err := ToMarkdown(bytes.NewReader(body), base)
		if err != nil {
			return fmt.Errorf("read the HTML of %s: %v", p.URL, err)
		}
		p.Title, p.Markdown = title, md
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var v any
		if json.Unmarshal(body, &v) == nil {
			if b, err := json.MarshalIndent(v, "", "  "); err == nil {
				body = b
			}
		}
		p.Markdown = "```json\n" + strings.ToValidUTF8(string(body), "�") + "\n```"
	case strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+xml") || mt == "application/xml":
		if !utf8.Valid(body) && !p.Truncated {
			return fmt.Errorf("%s is %s but not UTF-8 text", p.URL, mt)
		}
		p.Markdown = strings.ToValidUTF8(string(body), "�")
	default:
		return fmt.Errorf("%s is %s, not a page web_fetch can read as text", p.URL, mt)
	}
	return nil
}
