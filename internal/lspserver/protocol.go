package lspserver

import (
	"encoding/json"

	"github.com/olly-agent/olly/internal/lsp"
)

// The server side's protocol types, hand-written like internal/lsp's
// client-side ones (which this package reuses for positions, ranges and
// documents): only the fields olly reads or sends.

// Error codes of the protocol that olly answers with.
const (
	codeRequestCancelled     = -32800
	codeServerNotInitialized = -32002
	codeInvalidRequest       = -32600
)

// Trigger kinds of textDocument/inlineCompletion (LSP 3.18).
const (
	triggerInvoked   = 1
	triggerAutomatic = 2
)

// commandEdit is the command behind the "Edit with olly…" code action.
const commandEdit = "olly.edit"

type initializeParams struct {
	Capabilities struct {
		TextDocument struct {
			// InlineCompletion is set by clients that show inline
			// completions (LSP 3.18).
			InlineCompletion json.RawMessage `json:"inlineCompletion"`
		} `json:"textDocument"`
		Workspace struct {
			ApplyEdit     bool `json:"applyEdit"`
			WorkspaceEdit struct {
				DocumentChanges         bool            `json:"documentChanges"`
				ChangeAnnotationSupport json.RawMessage `json:"changeAnnotationSupport"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
	} `json:"capabilities"`
}

type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type serverCapabilities struct {
	TextDocumentSync         textDocumentSyncOptions `json:"textDocumentSync"`
	InlineCompletionProvider bool                    `json:"inlineCompletionProvider"`
	CompletionProvider       *completionOptions      `json:"completionProvider,omitempty"`
	CodeActionProvider       codeActionOptions       `json:"codeActionProvider"`
	ExecuteCommandProvider   executeCommandOptions   `json:"executeCommandProvider"`
}

// textDocumentSyncOptions: open and close notifications, and full text on
// every change (kind 1).
type textDocumentSyncOptions struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"`
}

type completionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters,omitempty"`
}

type codeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

type executeCommandOptions struct {
	Commands []string `json:"commands"`
}

type didOpenParams struct {
	TextDocument lsp.TextDocumentItem `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument   lsp.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                     `json:"contentChanges"`
}

// contentChange is the whole text, or (from a client that ignores the
// advertised full sync) a range and its replacement.
type contentChange struct {
	Range *lsp.Range `json:"range,omitempty"`
	Text  string     `json:"text"`
}

type didCloseParams struct {
	TextDocument lsp.TextDocumentIdentifier `json:"textDocument"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

type inlineCompletionParams struct {
	lsp.TextDocumentPositionParams
	Context struct {
		TriggerKind int `json:"triggerKind"`
	} `json:"context"`
}

type inlineCompletionList struct {
	Items []inlineCompletionItem `json:"items"`
}

type inlineCompletionItem struct {
	InsertText string     `json:"insertText"`
	Range      *lsp.Range `json:"range,omitempty"`
}

type completionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []completionItem `json:"items"`
}

// completionItem kinds and formats olly uses: Text (1), PlainText (1).
type completionItem struct {
	Label            string   `json:"label"`
	Kind             int      `json:"kind"`
	Detail           string   `json:"detail,omitempty"`
	Documentation    string   `json:"documentation,omitempty"`
	FilterText       string   `json:"filterText,omitempty"`
	InsertTextFormat int      `json:"insertTextFormat"`
	TextEdit         textEdit `json:"textEdit"`
	SortText         string   `json:"sortText,omitempty"`
	Preselect        bool     `json:"preselect,omitempty"`
}

type textEdit struct {
	Range   lsp.Range `json:"range"`
	NewText string    `json:"newText"`
}

type codeActionParams struct {
	TextDocument lsp.TextDocumentIdentifier `json:"textDocument"`
	Range        lsp.Range                  `json:"range"`
}

type codeAction struct {
	Title   string   `json:"title"`
	Kind    string   `json:"kind"`
	Command *command `json:"command,omitempty"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// EditArgs are olly.edit's one argument: the selection and what to do
// with it. A code action sends them without Instruction; the editor asks
// the person for it (the VS Code extension does) before executing.
type EditArgs struct {
	URI         lsp.DocumentURI `json:"uri"`
	Range       lsp.Range       `json:"range"`
	Instruction string          `json:"instruction,omitempty"`
}

type applyEditParams struct {
	Label string        `json:"label,omitempty"`
	Edit  workspaceEdit `json:"edit"`
}

type workspaceEdit struct {
	Changes           map[lsp.DocumentURI][]textEdit `json:"changes,omitempty"`
	DocumentChanges   []textDocumentEdit             `json:"documentChanges,omitempty"`
	ChangeAnnotations map[string]changeAnnotation    `json:"changeAnnotations,omitempty"`
}

type textDocumentEdit struct {
	TextDocument lsp.VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []annotatedTextEdit                 `json:"edits"`
}

type annotatedTextEdit struct {
	Range        lsp.Range `json:"range"`
	NewText      string    `json:"newText"`
	AnnotationID string    `json:"annotationId,omitempty"`
}

type changeAnnotation struct {
	Label             string `json:"label"`
	NeedsConfirmation bool   `json:"needsConfirmation"`
	Description       string `json:"description,omitempty"`
}

type applyEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// StatusParams is olly's own notification olly/status: which model
// completes, how, or why nothing does. The VS Code extension shows it in
// the status bar.
type StatusParams struct {
	Model string `json:"model"`
	// Mode is how the model is asked: "insert" (Ollama's suffix),
	// "raw" (the family's tokens), "suffix" (/v1/completions), "prefix"
	// (no fill-in-the-middle: the prefix only), or "" with Message.
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message,omitempty"`
}

type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}
