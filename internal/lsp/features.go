package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// The code-intelligence queries. Each takes an absolute path and a protocol
// position (see Mapper), makes sure the server has the file's current text,
// and returns the server's answer decoded. A file no server handles is a
// *NoServerError, a server that is not installed an *UnavailableError.

// prepare returns the file's server with the file synced.
func (m *Manager) prepare(ctx context.Context, path string, has func(serverCapabilities) provider, feature string) (*client, docState, error) {
	c, srv, err := m.clientForPath(ctx, path)
	if err != nil {
		return nil, docState{}, err
	}
	if has != nil && !has(c.caps) {
		return nil, docState{}, &UnsupportedError{Server: c.name, Feature: feature}
	}
	d, err := m.sync(c, srv, path, false)
	return c, d, err
}

func positionParams(d docState, pos Position) TextDocumentPositionParams {
	return TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: d.uri}, Position: pos}
}

// Definition returns where the symbol at pos is defined.
func (m *Manager) Definition(ctx context.Context, path string, pos Position) ([]Location, error) {
	return m.locations(ctx, path, pos, "textDocument/definition", "go to definition",
		func(c serverCapabilities) provider { return c.DefinitionProvider })
}

// Implementations returns the implementations of the interface, abstract
// method or type at pos.
func (m *Manager) Implementations(ctx context.Context, path string, pos Position) ([]Location, error) {
	return m.locations(ctx, path, pos, "textDocument/implementation", "find implementations",
		func(c serverCapabilities) provider { return c.ImplementationProvider })
}

func (m *Manager) locations(ctx context.Context, path string, pos Position, method, feature string, has func(serverCapabilities) provider) ([]Location, error) {
	c, d, err := m.prepare(ctx, path, has, feature)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.call(ctx, method, positionParams(d, pos), &raw); err != nil {
		return nil, err
	}
	return decodeLocations(raw)
}

// References returns the uses of the symbol at pos, with its declaration
// when includeDeclaration.
func (m *Manager) References(ctx context.Context, path string, pos Position, includeDeclaration bool) ([]Location, error) {
	c, d, err := m.prepare(ctx, path, func(c serverCapabilities) provider { return c.ReferencesProvider }, "find references")
	if err != nil {
		return nil, err
	}
	var locs []Location
	p := ReferenceParams{TextDocumentPositionParams: positionParams(d, pos), Context: ReferenceContext{IncludeDeclaration: includeDeclaration}}
	if err := c.call(ctx, "textDocument/references", p, &locs); err != nil {
		return nil, err
	}
	return locs, nil
}

// Hover returns the hover text (signature, documentation) at pos; nil
// when the server has none there.
func (m *Manager) Hover(ctx context.Context, path string, pos Position) (*Hover, error) {
	c, d, err := m.prepare(ctx, path, func(c serverCapabilities) provider { return c.HoverProvider }, "hover")
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.call(ctx, "textDocument/hover", positionParams(d, pos), &raw); err != nil {
		return nil, err
	}
	if isNull(raw) {
		return nil, nil
	}
	var h Hover
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("%s: decode hover: %w", c.name, err)
	}
	return &h, nil
}

// DocumentSymbols returns the file's outline. A server answering with flat
// SymbolInformation gets a flat outline.
func (m *Manager) DocumentSymbols(ctx context.Context, path string) ([]DocumentSymbol, error) {
	c, d, err := m.prepare(ctx, path, func(c serverCapabilities) provider { return c.DocumentSymbolProvider }, "document symbols")
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := c.call(ctx, "textDocument/documentSymbol", DocumentSymbolParams{TextDocument: TextDocumentIdentifier{URI: d.uri}}, &raw); err != nil {
		return nil, err
	}
	out := make([]DocumentSymbol, 0, len(raw))
	for _, r := range raw {
		var probe struct {
			Location *Location `json:"location"`
		}
		if err := json.Unmarshal(r, &probe); err != nil {
			return nil, fmt.Errorf("%s: decode document symbols: %w", c.name, err)
		}
		if probe.Location != nil {
			var si SymbolInformation
			if err := json.Unmarshal(r, &si); err != nil {
				return nil, fmt.Errorf("%s: decode document symbols: %w", c.name, err)
			}
			out = append(out, DocumentSymbol{Name: si.Name, Kind: si.Kind, Detail: si.ContainerName,
				Range: si.Location.Range, SelectionRange: si.Location.Range})
			continue
		}
		var ds DocumentSymbol
		if err := json.Unmarshal(r, &ds); err != nil {
			return nil, fmt.Errorf("%s: decode document symbols: %w", c.name, err)
		}
		out = append(out, ds)
	}
	return out, nil
}

// decodeLocations accepts every shape of a definition answer: null, one
// Location, or a list of Locations or LocationLinks. A link becomes a
// Location at its target's name (the selection range).
func decodeLocations(raw json.RawMessage) ([]Location, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return nil, nil
	}
	if raw[0] == '{' {
		raw = append(append([]byte{'['}, raw...), ']')
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("decode locations: %w", err)
	}
	out := make([]Location, 0, len(items))
	for _, it := range items {
		var both struct {
			Location
			LocationLink
		}
		if err := json.Unmarshal(it, &both); err != nil {
			return nil, fmt.Errorf("decode location: %w", err)
		}
		if both.TargetURI != "" {
			out = append(out, Location{URI: both.TargetURI, Range: both.TargetSelectionRange})
		} else {
			out = append(out, both.Location)
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
