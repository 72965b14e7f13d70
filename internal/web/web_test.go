package web

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestInternal(t *testing.T) {
	cases := map[string]bool{
		"127.0.0.1": true, "127.8.9.1": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "::": true, "224.0.0.1": true, "ff02::1": true,
		"100.64.0.1": true, "fd00::1": true, "::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true, "2002:7f00:1::": true,
		"8.8.8.8": false, "1.1.1.1": false, "2606:4700:4700::1111": false, "93.184.216.34": false,
	}
	for s, want := range cases {
		if got := Internal(netip.MustParseAddr(s)); got != want {
			t.Errorf("Internal(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestGuardAllow(t *testing.T) {
	if _, err := NewGuard([]string{"10.0.0.0/33"}); err == nil {
		t.Fatal("a malformed CIDR was accepted")
	}
	g, err := NewGuard([]string{"Localhost", "10.0.0.0/8", "192.168.1.5"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host, ip string
		want     bool
	}{
		{"localhost", "127.0.0.1", true}, {"evil.example", "127.0.0.1", false}, {"x", "10.9.9.9", true},
		{"x", "192.168.1.5", true}, {"x", "192.168.1.6", false}, {"x", "8.8.8.8", true},
	}
	for _, c := range cases {
		if got := g.allowed(c.host, netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("allowed(%s, %s) = %v", c.host, c.ip, got)
		}
	}
}

func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return srv, port
}

func fetcher(t *testing.T, allow ...string) *Fetcher {
	t.Helper()
	g, err := NewGuard(allow)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFetcher(g, 10*time.Second)
	t.Cleanup(f.Close)
	return f
}

func TestFetchMarkdownFromAllowedServer(t *testing.T) {
	page, _ := os.ReadFile("testdata/page.html")
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	p, err := fetcher(t, "localhost").Fetch(context.Background(), "http://localhost:"+port+"/docs/guide.html")
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != 200 || p.Title != "The Guide" {
		t.Fatalf("page = %+v", p)
	}
	golden(t, "testdata/page.md", strings.ReplaceAll(p.Markdown, port, "PORT"))
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/web -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestFetchRefusesInternalAddresses(t *testing.T) {
	hit := false
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) { hit = true })
	for _, u := range []string{
		"http://127.0.0.1:" + port + "/",
		"http://localhost:" + port + "/", // a name: refused on the address it resolves to
		"http://[::1]:" + port + "/",
		"http://0.0.0.0:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
	} {
		_, err := fetcher(t).Fetch(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), "internal address") || !strings.Contains(err.Error(), "web.allowHosts") {
			t.Errorf("Fetch(%s) = %v, want a refusal naming web.allowHosts", u, err)
		}
	}
	if hit {
		t.Fatal("a refused request reached the server")
	}
}

func TestRedirectsAreRecheckedAndBounded(t *testing.T) {
	hit := false
	_, target := server(t, func(w http.ResponseWriter, r *http.Request) { hit = true })
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/inside":
			// Allowed by name, it sends the client to an address the
			// allow list does not cover.
			http.Redirect(w, r, "http://127.0.0.1:"+target+"/", http.StatusFound)
		default:
			n := 0
			fmt.Sscanf(r.URL.Query().Get("n"), "%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/loop?n=%d", n+1), http.StatusFound)
		}
	})
	f := fetcher(t, "localhost")
	_, err := f.Fetch(context.Background(), "http://localhost:"+port+"/inside")
	if err == nil || !strings.Contains(err.Error(), "internal address") || hit {
		t.Fatalf("redirect to a refused address: err %v, reached %v", err, hit)
	}
	_, err = f.Fetch(context.Background(), "http://localhost:"+port+"/loop")
	if err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("endless redirects: %v", err)
	}
}

func TestFetchContentTypes(t *testing.T) {
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"a":1}`))
		case "/bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write([]byte{0, 1, 2})
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte(strings.Repeat("x", maxBody+10)))
		}
	})
	f := fetcher(t, "127.0.0.1")
	base := "http://127.0.0.1:" + port
	if p, err := f.Fetch(context.Background(), base+"/json"); err != nil || p.Markdown != "```json\n{\n  \"a\": 1\n}\n```" {
		t.Errorf("json: %+v %v", p, err)
	}
	if _, err := f.Fetch(context.Background(), base+"/bin"); err == nil || !strings.Contains(err.Error(), "application/octet-stream") {
		t.Errorf("binary: %v", err)
	}
	if p, err := f.Fetch(context.Background(), base+"/big"); err != nil || !p.Truncated || len(p.Markdown) != maxBody {
		t.Errorf("big: truncated %v len %d err %v", p != nil && p.Truncated, len(p.Markdown), err)
	}
	for _, bad := range []string{"file:///etc/passwd", "ftp://x/", "http://", "not a url"} {
		if _, err := f.Fetch(context.Background(), bad); err == nil {
			t.Errorf("Fetch(%q) succeeded", bad)
		}
	}
}

func TestFetchToolCapsAndAsks(t *testing.T) {
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>T</title><p>" + strings.Repeat("word ", 2000) + "</p>"))
	})
	tool := FetchTool{Fetcher: fetcher(t, "127.0.0.1"), MaxChars: 1000}
	a, _ := tools.ParseArgs(json.RawMessage(`{"url": "http://127.0.0.1:` + port + `/"}`))
	p, err := tool.Prepare(context.Background(), nil, a)
	if err != nil || p.Approval == nil || p.Approval.Rule != "network-fetch" || p.Done != nil {
		t.Fatalf("Prepare = %+v, %v: a fetch must ask", p, err)
	}
	res, err := p.Run(context.Background(), nil, approvalDecision())
	if err != nil || res.IsError || !strings.Contains(res.Content, "Title: T") || !strings.Contains(res.Content, "[The page was longer") || len(res.Content) > 1200 {
		t.Fatalf("result (%d chars) %v: %.200s", len(res.Content), err, res.Content)
	}
	fa, _ := tools.ParseArgs(json.RawMessage(`{"url": "file:///etc/passwd"}`))
	bad, _ := tool.Prepare(context.Background(), nil, fa)
	if bad.Done == nil || !bad.Done.IsError {
		t.Fatal("a file URL must be refused before asking")
	}
}

func TestSearchBackends(t *testing.T) {
	if NewSearcher(SearchOptions{}) != nil {
		t.Fatal("no backend configured must mean no searcher (no web_search tool)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/search" && r.URL.Query().Get("format") == "json":
			_, _ = w.Write([]byte(`{"results":[{"title":"Go","url":"https://go.dev","content":"The Go language"},{"title":"B","url":"https://b"},{"title":"C","url":"https://c"}]}`))
		case r.URL.Path == "/api/web_search" && r.Method == http.MethodPost && r.Header.Get("Authorization") == "Bearer k1":
			var body struct {
				Query string `json:"query"`
				Max   int    `json:"max_results"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			_, _ = fmt.Fprintf(w, `{"results":[{"title":"%s","url":"https://ollama.com","content":"max %d"}]}`, body.Query, body.Max)
		default:
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	sx := NewSearcher(SearchOptions{SearxngURL: srv.URL + "/", OllamaAPIKey: "k1", Timeout: 5 * time.Second})
	rs, err := sx.Search(context.Background(), "golang", 2)
	if err != nil || len(rs) != 2 || rs[0].URL != "https://go.dev" || sx.Name() != "SearXNG" {
		t.Fatalf("searxng: %+v %v", rs, err)
	}
	out := FormatResults(sx.Name(), "golang", rs)
	if !strings.Contains(out, "1. Go\n   https://go.dev\n   The Go language") {
		t.Fatalf("formatted:\n%s", out)
	}
	ol := NewSearcher(SearchOptions{OllamaAPIKey: "k1", OllamaURL: srv.URL + "/api/web_search", Timeout: 5 * time.Second})
	rs, err = ol.Search(context.Background(), "what is ollama", 15)
	if err != nil || len(rs) != 1 || rs[0].Title != "what is ollama" || rs[0].Content != "max 10" {
		t.Fatalf("ollama: %+v %v", rs, err)
	}
	bad := NewSearcher(SearchOptions{OllamaAPIKey: "wrong", OllamaURL: srv.URL + "/api/web_search", Timeout: 5 * time.Second})
	if _, err := bad.Search(context.Background(), "x", 5); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("a refused key: %v", err)
	}
}

func TestMarkdownDetails(t *testing.T) {
	base, _ := url.Parse("https://example.com/a/b.html")
	cases := map[string]string{
		`<p>a   b
		c</p>`: "a b c",
		`<pre>x ` + "```" + ` y</pre>`:           "````\nx ``` y\n````",
		`<p><code>a ` + "`" + ` b</code></p>`:    "``a ` b``",
		`<a href="../c d.html">link</a>`:         "[link](https://example.com/c%20d.html)",
		`<a href="#top">top</a>`:                 "top",
		`<h3>  </h3><p>x</p>`:                    "x",
		`<ul><li>a<ul><li>b</li></ul></li></ul>`: "- a\n  - b",
		`<div>` + strings.Repeat("<div>", 500) + "deep" + strings.Repeat("</div>", 500) + `</div>`: "deep",
	}
	for in, want := range cases {
		_, got, err := ToMarkdown(strings.NewReader(in), base)
		if err != nil || got != want {
			t.Errorf("ToMarkdown(%.60q) = %q, want %q (%v)", in, got, want, err)
		}
	}
}

func approvalDecision() approval.Decision { return approval.Decision{Outcome: event.DecisionApproved} }

func TestPathologicalNestingStillReads(t *testing.T) {
	in := "<script>hidden()</script>" + strings.Repeat("<div>", 2000) + "<p>deep text</p>"
	_, md, err := ToMarkdown(strings.NewReader(in), nil)
	if err != nil || md != "deep text" {
		t.Fatalf("ToMarkdown = %q, %v", md, err)
	}
}
