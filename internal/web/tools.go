package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/tools"
)

// The tools' names.
const (
	FetchToolName  = "web_fetch"
	SearchToolName = "web_search"
)

// FetchTool is web_fetch: a URL as readable Markdown. Every call asks
// like a network command (an approval of severity medium, rule
// network-fetch), since what the model fetches leaves the machine.
type FetchTool struct {
	Fetcher *Fetcher
	// MaxChars caps the Markdown the model receives (web.fetchMaxChars).
	MaxChars int
}

// Spec implements tools.Tool.
func (FetchTool) Spec() llm.Tool {
	return llm.Tool{Name: FetchToolName,
		Description: "Fetch a web page (http or https) and read it as Markdown: headings, links, lists, code blocks and tables; scripts and styles dropped. " +
			"Use it for documentation, issues or API references the task needs. Addresses on the local network (localhost, private ranges) are refused. The person approves each fetch.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"The absolute http:// or https:// URL to fetch."}},"required":["url"]}`)}
}

// Prepare checks the URL and asks for the fetch.
func (t FetchTool) Prepare(_ context.Context, _ *tools.Env, args tools.Args) (*tools.Prepared, error) {
	raw, _ := args.String("url")
	u, err := CheckURL(raw)
	if err != nil {
		return &tools.Prepared{Done: &tools.Result{IsError: true, Content: "web_fetch: " + err.Error(),
			Display: event.ToolAction{Text: "Fetch " + raw, Detail: "invalid URL"}}}, nil
	}
	look := event.ToolAction{Text: "Fetch " + u.Redacted()}
	argText, _ := json.Marshal(map[string]string{"url": u.String()})
	return &tools.Prepared{Display: look,
		Approval: &approval.Request{Kind: event.ApprovalTool, Tool: FetchToolName, Arguments: string(argText),
			Severity: safety.Medium, Rule: "network-fetch", Reason: "Fetches " + u.Redacted() + " from the network"},
		Run: func(ctx context.Context, _ *tools.Env, _ approval.Decision) (*tools.Result, error) {
			return t.fetch(ctx, u.String()), nil
		}}, nil
}

// Run is a call made outside Execute, which cannot ask: refused.
func (FetchTool) Run(context.Context, *tools.Env, tools.Args) (*tools.Result, error) {
	return &tools.Result{Denied: true, Content: "web_fetch needs the person's approval, which only Registry.Execute can ask for; it was not run."}, nil
}

func (t FetchTool) fetch(ctx context.Context, u string) *tools.Result {
	p, err := t.Fetcher.Fetch(ctx, u)
	if err != nil {
		return &tools.Result{IsError: true, Content: "web_fetch: " + err.Error(), Display: event.ToolAction{Detail: oneLine(err.Error())}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nStatus: %d\n", p.URL, p.Status)
	if p.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.Title)
	}
	b.WriteString("\n")
	md := p.Markdown
	cut := p.Truncated
	if max := t.MaxChars; max > 0 && len(md) > max {
		md, cut = strings.ToValidUTF8(md[:max], ""), true
	}
	b.WriteString(md)
	if cut {
		b.WriteString("\n\n[The page was longer; this is its beginning.]")
	}
	res := &tools.Result{Content: b.String(), Display: event.ToolAction{Detail: fmt.Sprintf("HTTP %d · %d characters", p.Status, len(md))}}
	if p.Status >= 400 {
		res.IsError = true
	}
	return res
}

// SearchTool is web_search through the configured backend. It is
// registered only when one is configured.
type SearchTool struct {
	Searcher Searcher
	// Results is how many results a search returns (web.searchResults).
	Results int
}

// Spec implements tools.Tool.
func (SearchTool) Spec() llm.Tool {
	return llm.Tool{Name: SearchToolName,
		Description: "Search the web. Returns titles, URLs and snippets; read a result with web_fetch.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to search for."}},"required":["query"]}`)}
}

// Describe shows the search while it runs.
func (SearchTool) Describe(args tools.Args) event.ToolAction {
	q, _ := args.String("query")
	return event.ToolAction{Text: "Search the web for " + q}
}

// Run searches.
func (t SearchTool) Run(ctx context.Context, _ *tools.Env, args tools.Args) (*tools.Result, error) {
	q, _ := args.String("query")
	q = strings.TrimSpace(q)
	if q == "" {
		return &tools.Result{IsError: true, Content: "web_search needs a query."}, nil
	}
	rs, err := t.Searcher.Search(ctx, q, t.Results)
	if err != nil {
		return &tools.Result{IsError: true, Content: err.Error(), Display: event.ToolAction{Text: "Search the web for " + q, Detail: oneLine(err.Error())}}, nil
	}
	return &tools.Result{Content: FormatResults(t.Searcher.Name(), q, rs),
		Display: event.ToolAction{Text: "Search the web for " + q, Detail: fmt.Sprintf("%d results · %s", len(rs), t.Searcher.Name())}}, nil
}
