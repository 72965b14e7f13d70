package lsp

import (
	"encoding/json"
	"strconv"
)

// Document synchronisation and diagnostics messages.

type didOpenParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// didChangeParams always carry the full text: olly writes whole files, and
// full sync is the one kind every server accepts.
type didChangeParams struct {
	TextDocument   VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type contentChange struct {
	Text string `json:"text"`
}

type didSaveParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text,omitempty"`
}

type didCloseParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DiagnosticSeverity ranks a diagnostic: 1 error … 4 hint.
type DiagnosticSeverity int

// Diagnostic severities.
const (
	SeverityError       DiagnosticSeverity = 1
	SeverityWarning     DiagnosticSeverity = 2
	SeverityInformation DiagnosticSeverity = 3
	SeverityHint        DiagnosticSeverity = 4
)

// String is the severity as the seed's formatDiagnostics writes it. A
// missing severity is treated as an error: the protocol leaves it to the
// client, and the verification gate must not miss a real one.
func (s DiagnosticSeverity) String() string {
	switch s {
	case SeverityWarning:
		return "Warning"
	case SeverityInformation:
		return "Info"
	case SeverityHint:
		return "Hint"
	}
	return "Error"
}

// IsError reports whether the diagnostic counts as an error.
func (s DiagnosticSeverity) IsError() bool { return s == SeverityError || s == 0 }

// Diagnostic is one problem a server reports.
type Diagnostic struct {
	Range    Range              `json:"range"`
	Severity DiagnosticSeverity `json:"severity,omitempty"`
	Code     DiagnosticCode     `json:"code,omitempty"`
	Source   string             `json:"source,omitempty"`
	Message  string             `json:"message"`
}

// DiagnosticCode is a diagnostic's code, a number or a string on the wire.
type DiagnosticCode string

// UnmarshalJSON accepts both forms.
func (c *DiagnosticCode) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = DiagnosticCode(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		*c = "" // an object or null: not a code olly can show
		return nil
	}
	*c = DiagnosticCode(n.String())
	return nil
}

// MarshalJSON writes a numeric code as a number again.
func (c DiagnosticCode) MarshalJSON() ([]byte, error) {
	if _, err := strconv.ParseInt(string(c), 10, 64); err == nil {
		return []byte(c), nil
	}
	return json.Marshal(string(c))
}

// publishDiagnosticsParams is the textDocument/publishDiagnostics
// notification. Version is the document version the diagnostics are for,
// when the server says.
type publishDiagnosticsParams struct {
	URI         DocumentURI  `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// documentDiagnosticParams is a pull-diagnostics request.
type documentDiagnosticParams struct {
	TextDocument     TextDocumentIdentifier `json:"textDocument"`
	Identifier       string                 `json:"identifier,omitempty"`
	PreviousResultID string                 `json:"previousResultId,omitempty"`
}

// documentDiagnosticReport is the answer: "full" with items, or
// "unchanged" since PreviousResultID.
type documentDiagnosticReport struct {
	Kind     string       `json:"kind"`
	ResultID string       `json:"resultId,omitempty"`
	Items    []Diagnostic `json:"items,omitempty"`
}
