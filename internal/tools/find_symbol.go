package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// FindSymbol is the find_symbol tool: find functions, types and other
// symbols by name across the workspace, from the language servers' index.
type FindSymbol struct {
	Servers SymbolSearcher
	// MaxResults caps the symbols listed (default 30).
	MaxResults int
}

func (t FindSymbol) max() int {
	if t.MaxResults <= 0 {
		return 30
	}
	return t.MaxResults
}

// Spec implements Tool.
func (t FindSymbol) Spec() llm.Tool {
	return spec("find_symbol", map[string]any{"MaxResults": t.max()},
		param{name: "query", typ: "string", desc: "The symbol's name or part of it (symbolName is accepted too).", required: true},
		param{name: "path", typ: "string", desc: "Optional file or directory whose language to search (default: every language in the workspace)."},
	)
}

// Describe implements Describer.
func (t FindSymbol) Describe(args Args) event.ToolAction {
	q, _ := args.String("query", "symbolName", "symbol", "name")
	return event.ToolAction{Text: "Finding symbol " + strings.TrimSpace(q)}
}

// Run implements Tool.
func (t FindSymbol) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("find_symbol"), nil
	}
	q, _ := args.String("query", "symbolName", "symbol", "name")
	q = strings.TrimSpace(q)
	if q == "" {
		return errResult("find_symbol needs a query: the name (or part of the name) of a function, type or variable."), nil
	}
	near := ""
	if given, ok := args.Path(); ok && strings.TrimSpace(given) != "" {
		if env.Workspace == nil {
			return noWorkspace("find_symbol"), nil
		}
		wp, err := env.Workspace.Resolve(strings.TrimSpace(given))
		if err != nil {
			return pathError("find_symbol", err), nil
		}
		near = wp.Abs
	}
	found, err := t.Servers.WorkspaceSymbols(ctx, q, near)
	if err != nil {
		return lspFailure("find_symbol", fmt.Sprintf("%q", q), err)
	}
	look := event.ToolAction{Text: "Searched symbols for " + q}
	if len(found.Symbols) == 0 {
		look.Detail = "none found"
		return &Result{IsError: len(found.Languages) == 0, Content: t.none(q, found), Display: look}, nil
	}
	return t.render(env, q, found, look), nil
}

func (t FindSymbol) none(q string, found lsp.WorkspaceSymbols) string {
	var b strings.Builder
	if len(found.Languages) == 0 {
		fmt.Fprintf(&b, "No language server could search for %q.", q)
	} else {
		fmt.Fprintf(&b, "No symbol matches %q (searched %s). Try a shorter or differently cased name, or search_workspace for the text.", q, strings.Join(found.Languages, ", "))
	}
	for _, err := range found.Skipped {
		fmt.Fprintf(&b, "\n%v.", err)
	}
	return b.String()
}

func (t FindSymbol) render(env *Env, q string, found lsp.WorkspaceSymbols, look event.ToolAction) *Result {
	src := newSourceFiles(env.Workspace)
	type hit struct {
		sym  lsp.SymbolInformation
		p    place
		rank int
	}
	hits := make([]hit, 0, len(found.Symbols))
	for _, s := range found.Symbols {
		p := src.place(s.Location.URI, s.Location.Range.Start)
		hits = append(hits, hit{sym: s, p: p, rank: symbolRank(q, s.Name, p.outside)})
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.p.rel, b.p.rel), cmp.Compare(a.p.line, b.p.line))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s found for %q:\n", lsp.Plural(len(hits), "symbol"), q)
	var listing []event.ListingEntry
	for i, h := range hits {
		if i == t.max() {
			fmt.Fprintf(&b, "[%d more symbols are not shown; use a more specific query.]\n", len(hits)-i)
			break
		}
		fmt.Fprintf(&b, "%s %s — %s", h.sym.Kind, h.sym.Name, h.p)
		if h.sym.ContainerName != "" {
			fmt.Fprintf(&b, " (in %s)", h.sym.ContainerName)
		}
		if h.p.outside {
			b.WriteString(" (outside the workspace)")
		}
		b.WriteByte('\n')
		if line := h.p.lineText(); line != "" {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		if !h.p.outside {
			listing = append(listing, event.ListingEntry{Path: h.p.rel})
		}
	}
	for _, err := range found.Skipped {
		fmt.Fprintf(&b, "Not searched: %v.\n", err)
	}
	look.Detail, look.Listing = fmt.Sprintf("%d found", len(hits)), listing
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}
}

// symbolRank orders matches: the exact name, then the exact name in
// another case, then names starting with the query, then the rest;
// symbols in the workspace before those outside it.
func symbolRank(q, name string, outside bool) int {
	short := name
	if i := strings.LastIndexAny(name, ".:#"); i >= 0 {
		short = name[i+1:]
	}
	rank := 4
	switch {
	case short == q || name == q:
		rank = 0
	case strings.EqualFold(short, q):
		rank = 1
	case strings.HasPrefix(strings.ToLower(short), strings.ToLower(q)):
		rank = 2
	case strings.Contains(strings.ToLower(short), strings.ToLower(q)):
		rank = 3
	}
	if outside {
		rank += 10
	}
	return rank
}
