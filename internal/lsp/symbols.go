package lsp

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"sync"

	"github.com/olly-agent/olly/internal/workspace"
)

// maxDetectFiles bounds the walk that finds a workspace's languages.
const maxDetectFiles = 5000

// WorkspaceSymbols is the answer to a workspace-wide symbol search.
type WorkspaceSymbols struct {
	Symbols []SymbolInformation
	// Languages are the languages whose servers were asked.
	Languages []string
	// Skipped says why a language of the workspace could not be searched
	// (its server is missing, crashed or timed out).
	Skipped []error
}

// WorkspaceSymbols searches symbols by name. near, a file or directory,
// picks the language to ask; without it every language found in the
// workspace (and every server already running) is asked.
func (m *Manager) WorkspaceSymbols(ctx context.Context, query, near string) (WorkspaceSymbols, error) {
	var langs []Server
	if srv, ok := serverFor(m.opts.Servers, near); ok && near != "" {
		langs = []Server{srv}
	} else {
		var err error
		if langs, err = m.workspaceServers(ctx); err != nil {
			return WorkspaceSymbols{}, err
		}
	}
	var out WorkspaceSymbols
	for _, srv := range langs {
		c, err := m.clientFor(ctx, srv)
		if err == nil && !c.caps.WorkspaceSymbolProvider {
			err = &UnsupportedError{Server: c.name, Feature: "workspace symbol search"}
		}
		var syms []SymbolInformation
		if err == nil {
			err = c.call(ctx, "workspace/symbol", WorkspaceSymbolParams{Query: query}, &syms)
		}
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			out.Skipped = append(out.Skipped, err)
			continue
		}
		out.Languages = append(out.Languages, srv.Language)
		out.Symbols = append(out.Symbols, syms...)
	}
	return out, nil
}

// workspaceServers returns the servers of the languages in the workspace,
// most files first, plus any already running. The walk is done once per
// manager and bounded: a symbol search must not read a huge tree.
func (m *Manager) workspaceServers(ctx context.Context) ([]Server, error) {
	langs, err := m.detectLanguages(ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	for lang, st := range m.langs {
		if st.client != nil && !slices.Contains(langs, lang) {
			langs = append(langs, lang)
		}
	}
	m.mu.Unlock()
	var out []Server
	for _, l := range langs {
		for _, s := range m.opts.Servers {
			if s.Language == l {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

func (m *Manager) detectLanguages(ctx context.Context) ([]string, error) {
	m.detectMu.Lock()
	defer m.detectMu.Unlock()
	if m.detected != nil {
		return append([]string(nil), m.detected...), nil
	}
	var (
		mu     sync.Mutex
		counts = map[string]int{}
		seen   int
	)
	for _, r := range m.ws.Roots() {
		err := m.ws.Walk(ctx, r.Path, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if e.IsDir {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if seen++; seen > maxDetectFiles {
				return fs.SkipAll
			}
			if s, ok := serverFor(m.opts.Servers, e.Path); ok {
				counts[s.Language]++
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.SkipAll) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			m.opts.Logger.Debug("language detection walk failed", "root", r.Path, "err", err)
		}
	}
	langs := make([]string, 0, len(counts))
	for l := range counts {
		langs = append(langs, l)
	}
	slices.SortFunc(langs, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	m.detected = langs
	return append([]string(nil), langs...), nil
}
