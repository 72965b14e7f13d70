package lsp

import (
	"bytes"
	"encoding/json"
)

// The initialize handshake and the requests and notifications a server
// sends the client.

type initializeParams struct {
	ProcessID             int                `json:"processId"`
	ClientInfo            clientInfo         `json:"clientInfo"`
	Locale                string             `json:"locale,omitempty"`
	RootURI               DocumentURI        `json:"rootUri"`
	Capabilities          clientCapabilities `json:"capabilities"`
	InitializationOptions json.RawMessage    `json:"initializationOptions,omitempty"`
	WorkspaceFolders      []WorkspaceFolder  `json:"workspaceFolders"`
}

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// WorkspaceFolder is one root of a multi-root workspace.
type WorkspaceFolder struct {
	URI  DocumentURI `json:"uri"`
	Name string      `json:"name"`
}

// clientCapabilities declare what olly actually uses; nothing more, so a
// server never sends what olly would ignore.
type clientCapabilities struct {
	Workspace    workspaceClientCapabilities    `json:"workspace"`
	TextDocument textDocumentClientCapabilities `json:"textDocument"`
	Window       windowClientCapabilities       `json:"window"`
	General      generalClientCapabilities      `json:"general"`
}

type workspaceClientCapabilities struct {
	Configuration    bool         `json:"configuration"`
	WorkspaceFolders bool         `json:"workspaceFolders"`
	Symbol           dynamicFlag  `json:"symbol"`
	Diagnostics      refreshFlags `json:"diagnostics"`
}

type dynamicFlag struct {
	DynamicRegistration bool `json:"dynamicRegistration"`
}

type refreshFlags struct {
	RefreshSupport bool `json:"refreshSupport"`
}

type textDocumentClientCapabilities struct {
	Synchronization    syncCapabilities               `json:"synchronization"`
	PublishDiagnostics publishDiagnosticsCapabilities `json:"publishDiagnostics"`
	Diagnostic         diagnosticCapabilities         `json:"diagnostic"`
	DocumentSymbol     documentSymbolCapabilities     `json:"documentSymbol"`
	Definition         linkCapabilities               `json:"definition"`
	Implementation     linkCapabilities               `json:"implementation"`
	References         dynamicFlag                    `json:"references"`
	Hover              hoverCapabilities              `json:"hover"`
	CallHierarchy      dynamicFlag                    `json:"callHierarchy"`
	TypeHierarchy      dynamicFlag                    `json:"typeHierarchy"`
}

type syncCapabilities struct {
	DynamicRegistration bool `json:"dynamicRegistration"`
	DidSave             bool `json:"didSave"`
}

type publishDiagnosticsCapabilities struct {
	RelatedInformation bool `json:"relatedInformation"`
	VersionSupport     bool `json:"versionSupport"`
}

type diagnosticCapabilities struct {
	DynamicRegistration    bool `json:"dynamicRegistration"`
	RelatedDocumentSupport bool `json:"relatedDocumentSupport"`
}

type documentSymbolCapabilities struct {
	HierarchicalDocumentSymbolSupport bool `json:"hierarchicalDocumentSymbolSupport"`
}

type linkCapabilities struct {
	LinkSupport bool `json:"linkSupport"`
}

type hoverCapabilities struct {
	ContentFormat []string `json:"contentFormat"`
}

type windowClientCapabilities struct {
	WorkDoneProgress bool `json:"workDoneProgress"`
}

type generalClientCapabilities struct {
	PositionEncodings []string `json:"positionEncodings"`
}

// olly's capabilities: only UTF-16 positions, so every server must use the
// protocol's default encoding (see Mapper).
func ollyCapabilities() clientCapabilities {
	return clientCapabilities{
		Workspace: workspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
		TextDocument: textDocumentClientCapabilities{
			Synchronization:    syncCapabilities{DynamicRegistration: true, DidSave: true},
			PublishDiagnostics: publishDiagnosticsCapabilities{VersionSupport: true},
			Diagnostic:         diagnosticCapabilities{DynamicRegistration: true},
			DocumentSymbol:     documentSymbolCapabilities{HierarchicalDocumentSymbolSupport: true},
			Definition:         linkCapabilities{LinkSupport: true},
			Implementation:     linkCapabilities{LinkSupport: true},
			Hover:              hoverCapabilities{ContentFormat: []string{"markdown", "plaintext"}},
		},
		Window:  windowClientCapabilities{WorkDoneProgress: true},
		General: generalClientCapabilities{PositionEncodings: []string{"utf-16"}},
	}
}

type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo,omitempty"`
}

// serverCapabilities are the parts of the server's answer olly consults.
// Providers are "true or an options object"; a present, non-false value
// means supported.
type serverCapabilities struct {
	PositionEncoding        string          `json:"positionEncoding,omitempty"`
	TextDocumentSync        json.RawMessage `json:"textDocumentSync,omitempty"`
	DefinitionProvider      provider        `json:"definitionProvider,omitempty"`
	ReferencesProvider      provider        `json:"referencesProvider,omitempty"`
	ImplementationProvider  provider        `json:"implementationProvider,omitempty"`
	DocumentSymbolProvider  provider        `json:"documentSymbolProvider,omitempty"`
	WorkspaceSymbolProvider provider        `json:"workspaceSymbolProvider,omitempty"`
	HoverProvider           provider        `json:"hoverProvider,omitempty"`
	CallHierarchyProvider   provider        `json:"callHierarchyProvider,omitempty"`
	TypeHierarchyProvider   provider        `json:"typeHierarchyProvider,omitempty"`
	DiagnosticProvider      *struct {
		Identifier string `json:"identifier,omitempty"`
	} `json:"diagnosticProvider,omitempty"`
}

// provider is a "boolean | options" capability.
type provider bool

// UnmarshalJSON treats false and null as unsupported, anything else as
// supported.
func (p *provider) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*p = provider(!bytes.Equal(b, []byte("false")) && !bytes.Equal(b, []byte("null")))
	return nil
}

// saveIncludesText reports whether the server wants the text with didSave.
func (c serverCapabilities) saveIncludesText() bool {
	var opts struct {
		Save json.RawMessage `json:"save"`
	}
	if json.Unmarshal(c.TextDocumentSync, &opts) != nil || len(opts.Save) == 0 {
		return false
	}
	var save struct {
		IncludeText bool `json:"includeText"`
	}
	return json.Unmarshal(opts.Save, &save) == nil && save.IncludeText
}

// Messages a server sends the client.

type configurationParams struct {
	Items []json.RawMessage `json:"items"`
}

type registrationParams struct {
	Registrations []registration `json:"registrations"`
}

type registration struct {
	ID              string          `json:"id"`
	Method          string          `json:"method"`
	RegisterOptions json.RawMessage `json:"registerOptions,omitempty"`
}

// unregistrationParams keeps the protocol's misspelt field name.
type unregistrationParams struct {
	Unregisterations []registration `json:"unregisterations"`
}

type logMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

type cancelParams struct {
	ID any `json:"id"`
}
