package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OllamaSearchURL is Ollama's web search API.
const OllamaSearchURL = "https://ollama.com/api/web_search"

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

// Searcher is a search backend.
type Searcher interface {
	// Name names the backend in results and errors.
	Name() string
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// SearchOptions choose the backend (web.searxngUrl, web.ollamaApiKey).
type SearchOptions struct {
	SearxngURL   string
	OllamaAPIKey string
	// OllamaURL replaces OllamaSearchURL (tests).
	OllamaURL string
	Timeout   time.Duration
}

// NewSearcher returns the configured backend: SearXNG when its URL is
// set, else Ollama's API when a key is set, else nil (no web_search
// tool). The backends are the person's choice, so they are not guarded:
// a SearXNG on localhost is the usual set-up.
func NewSearcher(o SearchOptions) Searcher {
	client := &http.Client{Timeout: o.Timeout}
	switch {
	case o.SearxngURL != "":
		return &searxng{base: strings.TrimRight(o.SearxngURL, "/"), client: client}
	case o.OllamaAPIKey != "":
		u := o.OllamaURL
		if u == "" {
			u = OllamaSearchURL
		}
		return &ollamaSearch{url: u, key: o.OllamaAPIKey, client: client}
	}
	return nil
}

type searxng struct {
	base   string
	client *http.Client
}

func (s *searxng) Name() string { return "SearXNG" }

func (s *searxng) Search(ctx context.Context, query string, n int) ([]Result, error) {
	u := s.base + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	var out struct {
		Results []Result `json:"results"`
	}
	if err := do(s.client, req, &out, "SearXNG (is its JSON format enabled in settings.yml: search.formats: [html, json]?)"); err != nil {
		return nil, err
	}
	return first(out.Results, n), nil
}

type ollamaSearch struct {
	url, key string
	client   *http.Client
}

func (s *ollamaSearch) Name() string { return "Ollama web search" }

func (s *ollamaSearch) Search(ctx context.Context, query string, n int) ([]Result, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "max_results": min(n, 10)}) // the API's maximum
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	var out struct {
		Results []Result `json:"results"`
	}
	if err := do(s.client, req, &out, "Ollama's web search (is web.ollamaApiKey a valid key from ollama.com/settings/keys?)"); err != nil {
		return nil, err
	}
	return first(out.Results, n), nil
}

// do sends req and decodes a JSON answer into out.
func do(c *http.Client, req *http.Request, out any, what string) error {
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("search: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("search: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("search: %s answered HTTP %d: %s", what, resp.StatusCode, strings.TrimSpace(oneLine(string(data[:min(len(data), 300)]))))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("search: %s sent no JSON results (%v)", what, err)
	}
	return nil
}

func first(rs []Result, n int) []Result {
	if n > 0 && len(rs) > n {
		rs = rs[:n]
	}
	return rs
}

// FormatResults renders results for the model.
func FormatResults(backend, query string, rs []Result) string {
	if len(rs) == 0 {
		return fmt.Sprintf("No results for %q (%s).", query, backend)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q (%s):\n", query, backend)
	for i, r := range rs {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, oneLine(r.Title), r.URL)
		if c := oneLine(r.Content); c != "" {
			if len(c) > 500 {
				c = strings.ToValidUTF8(c[:500], "") + "…"
			}
			fmt.Fprintf(&b, "   %s\n", c)
		}
	}
	b.WriteString("\nUse web_fetch on a result's URL to read it.")
	return b.String()
}
