package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// This file holds the Language Server Protocol 3.17 types olly uses for
// documents, positions and results, written for olly rather than generated:
// only the fields a tool reads or a server needs are here.

// DocumentURI is a file:// URI as the protocol carries it.
type DocumentURI string

// Position is a zero-based line and a zero-based character offset in that
// line, counted in UTF-16 code units (the protocol's default encoding,
// the only one olly offers). Convert with a Mapper.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a half-open span [Start, End).
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a span in a document.
type Location struct {
	URI   DocumentURI `json:"uri"`
	Range Range       `json:"range"`
}

// LocationLink is a richer Location some servers return for definitions
// and implementations (olly advertises linkSupport).
type LocationLink struct {
	OriginSelectionRange *Range      `json:"originSelectionRange,omitempty"`
	TargetURI            DocumentURI `json:"targetUri"`
	TargetRange          Range       `json:"targetRange"`
	TargetSelectionRange Range       `json:"targetSelectionRange"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI DocumentURI `json:"uri"`
}

// VersionedTextDocumentIdentifier names a version of an open document.
type VersionedTextDocumentIdentifier struct {
	URI     DocumentURI `json:"uri"`
	Version int32       `json:"version"`
}

// TextDocumentItem is a document as it is opened.
type TextDocumentItem struct {
	URI        DocumentURI `json:"uri"`
	LanguageID string      `json:"languageId"`
	Version    int32       `json:"version"`
	Text       string      `json:"text"`
}

// TextDocumentPositionParams address a position in a document.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// ReferenceParams ask for the references to a symbol.
type ReferenceParams struct {
	TextDocumentPositionParams
	Context ReferenceContext `json:"context"`
}

// ReferenceContext says whether the declaration counts as a reference.
type ReferenceContext struct {
	IncludeDeclaration bool `json:"includeDeclaration"`
}

// DocumentSymbolParams ask for a document's outline.
type DocumentSymbolParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// WorkspaceSymbolParams search the workspace's symbols by name.
type WorkspaceSymbolParams struct {
	Query string `json:"query"`
}

// SymbolKind is the protocol's kind of a symbol (1 = File … 26 =
// TypeParameter).
type SymbolKind int

var symbolKindNames = [...]string{"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

// String names the kind in lower case ("function", "struct").
func (k SymbolKind) String() string {
	if k > 0 && int(k) < len(symbolKindNames) {
		return symbolKindNames[k]
	}
	return "symbol"
}

// DocumentSymbol is one entry of a hierarchical outline.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           SymbolKind       `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// SymbolInformation is a flat symbol: the older documentSymbol answer and
// the workspace/symbol answer.
type SymbolInformation struct {
	Name          string     `json:"name"`
	Kind          SymbolKind `json:"kind"`
	Location      Location   `json:"location"`
	ContainerName string     `json:"containerName,omitempty"`
}

// Hover is the answer to textDocument/hover, its contents flattened to
// text (Markdown or plain).
type Hover struct {
	Contents string `json:"-"`
	Range    *Range `json:"range,omitempty"`
}

// UnmarshalJSON accepts the three shapes of hover contents: MarkupContent,
// a MarkedString, or a list of MarkedStrings.
func (h *Hover) UnmarshalJSON(b []byte) error {
	var raw struct {
		Contents json.RawMessage `json:"contents"`
		Range    *Range          `json:"range"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	h.Range = raw.Range
	text, err := markedText(raw.Contents)
	if err != nil {
		return fmt.Errorf("hover contents: %w", err)
	}
	h.Contents = text
	return nil
}

// markedText flattens MarkupContent, MarkedString or []MarkedString.
func markedText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var out []string
		for _, p := range parts {
			s, err := markedText(p)
			if err != nil {
				return "", err
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return joinParagraphs(out), nil
	}
	var obj struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", err
	}
	if obj.Language != "" { // a MarkedString with a language is a code block
		return "```" + obj.Language + "\n" + obj.Value + "\n```", nil
	}
	return obj.Value, nil
}

func joinParagraphs(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p)
	}
	return b.String()
}

// CallHierarchyItem is a function or method in a call hierarchy. Data is
// the server's own, sent back unchanged in follow-up requests.
type CallHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           SymbolKind      `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            DocumentURI     `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// CallHierarchyIncomingCall is a caller and the call sites in it.
type CallHierarchyIncomingCall struct {
	From       CallHierarchyItem `json:"from"`
	FromRanges []Range           `json:"fromRanges"`
}

// CallHierarchyOutgoingCall is a callee and the call sites (in the
// caller) that call it.
type CallHierarchyOutgoingCall struct {
	To         CallHierarchyItem `json:"to"`
	FromRanges []Range           `json:"fromRanges"`
}

// TypeHierarchyItem is a type in a type hierarchy.
type TypeHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           SymbolKind      `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            DocumentURI     `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// callHierarchyItemParams and typeHierarchyItemParams carry an item to a
// follow-up request (incoming/outgoing calls, supertypes/subtypes).
type callHierarchyItemParams struct {
	Item CallHierarchyItem `json:"item"`
}

type typeHierarchyItemParams struct {
	Item TypeHierarchyItem `json:"item"`
}
