package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/lsp"
)

// The code-intelligence tools ask real language servers (seed 000, "LSP-
// Powered Code Intelligence Tools"). Each depends on the one question it
// asks; *lsp.Manager answers them all.

// DefinitionFinder answers find_definition.
type DefinitionFinder interface {
	Definition(ctx context.Context, path string, pos lsp.Position) ([]lsp.Location, error)
}

// ReferenceFinder answers find_references.
type ReferenceFinder interface {
	References(ctx context.Context, path string, pos lsp.Position, includeDeclaration bool) ([]lsp.Location, error)
}

// ImplementationFinder answers find_implementations.
type ImplementationFinder interface {
	Implementations(ctx context.Context, path string, pos lsp.Position) ([]lsp.Location, error)
}

// SymbolSearcher answers find_symbol.
type SymbolSearcher interface {
	WorkspaceSymbols(ctx context.Context, query, near string) (lsp.WorkspaceSymbols, error)
}

// SymbolOutliner answers get_document_symbols.
type SymbolOutliner interface {
	DocumentSymbols(ctx context.Context, path string) ([]lsp.DocumentSymbol, error)
}

// HoverProvider answers get_hover_info.
type HoverProvider interface {
	Hover(ctx context.Context, path string, pos lsp.Position) (*lsp.Hover, error)
}

// CallHierarchyProvider answers get_call_hierarchy.
type CallHierarchyProvider interface {
	PrepareCallHierarchy(ctx context.Context, path string, pos lsp.Position) ([]lsp.CallHierarchyItem, error)
	IncomingCalls(ctx context.Context, item lsp.CallHierarchyItem) ([]lsp.CallHierarchyIncomingCall, error)
	OutgoingCalls(ctx context.Context, item lsp.CallHierarchyItem) ([]lsp.CallHierarchyOutgoingCall, error)
}

// TypeHierarchyProvider answers get_type_hierarchy.
type TypeHierarchyProvider interface {
	PrepareTypeHierarchy(ctx context.Context, path string, pos lsp.Position) ([]lsp.TypeHierarchyItem, error)
	Supertypes(ctx context.Context, item lsp.TypeHierarchyItem) ([]lsp.TypeHierarchyItem, error)
	Subtypes(ctx context.Context, item lsp.TypeHierarchyItem) ([]lsp.TypeHierarchyItem, error)
}

// DiagnosticsProvider answers get_diagnostics.
type DiagnosticsProvider interface {
	Diagnose(ctx context.Context, paths []string) ([]lsp.FileReport, error)
}

// ChangedFiles lists the files the session's current agent run changed
// (workspace-relative), for get_diagnostics without a path: the
// checkpoint of the run knows them.
type ChangedFiles interface {
	ChangedFiles(ctx context.Context, session string) ([]string, error)
}

// LanguageServers is everything the tools ask: *lsp.Manager.
type LanguageServers interface {
	DefinitionFinder
	ReferenceFinder
	ImplementationFinder
	SymbolSearcher
	SymbolOutliner
	HoverProvider
	CallHierarchyProvider
	TypeHierarchyProvider
	DiagnosticsProvider
}

// LSP returns get_diagnostics and the eight code-intelligence tools, in
// the order the model sees them. changed may be nil: get_diagnostics then
// needs a path.
func LSP(servers LanguageServers, changed ChangedFiles) []Tool {
	return []Tool{
		GetDiagnostics{Servers: servers, Changed: changed},
		GetDocumentSymbols{Servers: servers},
		FindDefinition{Servers: servers},
		FindReferences{Servers: servers},
		FindImplementations{Servers: servers},
		FindSymbol{Servers: servers},
		GetHoverInfo{Servers: servers},
		GetCallHierarchy{Servers: servers},
		GetTypeHierarchy{Servers: servers},
	}
}

// positionParams are the parameters every position-taking tool shares.
func positionParams() []param {
	return []param{
		{name: "path", typ: "string", desc: "File path, relative to the workspace root.", required: true},
		{name: "symbolName", typ: "string", desc: "Name of the symbol (function, method, type, variable) in that file. Preferred over line/character."},
		{name: "line", typ: "integer", desc: "1-based line of the symbol; with symbolName, picks the occurrence nearest this line."},
		{name: "character", typ: "integer", desc: "1-based column of the symbol on that line (needs line)."},
	}
}

// lspFailure turns a language-server error into a result the model can act
// on: a missing server, a file kind no server handles, a timeout, a crash
// or the server's own error. Only an ended ctx stays a Go error.
func lspFailure(tool, subject string, err error) (*Result, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	var (
		ua *lsp.UnavailableError
		ns *lsp.NoServerError
		te *lsp.TimeoutError
	)
	hint := ""
	detail := "language server failed"
	switch {
	case errors.As(err, &ua):
		hint, detail = " Use search_workspace and read_file instead.", "no language server"
	case errors.As(err, &ns):
		hint, detail = " Use search_workspace and read_file instead.", "no language server"
	case errors.As(err, &te):
		hint, detail = " The server may still be loading the workspace; try again in a moment, or use search_workspace.", "timed out"
	}
	return &Result{IsError: true, Content: fmt.Sprintf("%s could not answer for %s: %v.%s", tool, subject, err, hint),
		Display: event.ToolAction{Detail: detail}}, nil
}

// noServers is the result when olly runs without language servers.
func noServers(tool string) *Result {
	return errResult("%s is unavailable: olly was started without language servers.", tool)
}
