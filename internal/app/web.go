package app

import (
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/web"
)

// webTools are web_fetch (through the SSRF guard, with web.allowHosts) and,
// only when a backend is configured (web.searxngUrl or web.ollamaApiKey),
// web_search: with no backend the tool is absent rather than broken.
func (a *App) webTools() []tools.Tool {
	w := a.Config.Web
	guard, err := web.NewGuard(w.AllowHosts)
	if err != nil {
		// Fail closed: a malformed allow list allows nothing extra.
		a.Log.Warn("web_fetch: web.allowHosts ignored", "error", err)
		guard, _ = web.NewGuard(nil)
	}
	out := []tools.Tool{web.FetchTool{Fetcher: web.NewFetcher(guard, w.FetchTimeout), MaxChars: w.FetchMaxChars}}
	if s := web.NewSearcher(web.SearchOptions{SearxngURL: w.SearxngURL, OllamaAPIKey: w.OllamaAPIKey, Timeout: w.FetchTimeout}); s != nil {
		out = append(out, web.SearchTool{Searcher: s, Results: w.SearchResults})
	}
	return out
}
