package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/lsp"
)

const editText = "package main\n\nfunc two() int {\n\treturn 1 + 1\n}\n"

var editRange = lsp.Range{Start: lsp.Position{Line: 3, Character: 0}, End: lsp.Position{Line: 4, Character: 0}}

func editServer(t *testing.T) *llmtest.Server {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"))
	return srv
}

func editSettings() Settings {
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	set.EditModel = "qwen3:8b"
	return set
}

// The bar: the code action, then the command with the instruction, one
// model call, and one edit applied by the editor.
func TestEditWithInstructionsAppliesOneEdit(t *testing.T) {
	srv := editServer(t)
	c := startClient(t, srv, editSettings(), clientOpts{})
	c.open(goURI, "go", editText)

	var actions []codeAction
	c.call("textDocument/codeAction", codeActionParams{TextDocument: lsp.TextDocumentIdentifier{URI: goURI}, Range: editRange}, &actions)
	if len(actions) != 1 || actions[0].Title != "Edit with olly…" || actions[0].Command.Command != commandEdit {
		t.Fatalf("actions %+v", actions)
	}
	// The editor asks the person for the instruction and adds it.
	raw, _ := json.Marshal(actions[0].Command.Arguments[0])
	var args EditArgs
	_ = json.Unmarshal(raw, &args)
	args.Instruction = "return the constant"

	srv.Enqueue(llmtest.Reply(llmtest.Text("```go\n\treturn 2\n```")))
	c.call("workspace/executeCommand", map[string]any{"command": commandEdit, "arguments": []any{args}}, nil)

	want := []applyEditParams{{
		Label: "olly: return the constant",
		Edit:  workspaceEdit{Changes: map[lsp.DocumentURI][]textEdit{goURI: {{Range: editRange, NewText: "\treturn 2\n"}}}},
	}}
	if diff := cmp.Diff(want, c.edits); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	r := srv.LastRequest("/api/chat")
	if r.Model != "qwen3:8b" || len(r.Messages) != 2 {
		t.Fatalf("chat request %+v", r)
	}
	user := r.Messages[1].Content
	for _, part := range []string{"Instruction: return the constant", "<selection>\n\treturn 1 + 1\n</selection>", "func two() int {\n</before>", "File: w/add.go (go)"} {
		if !strings.Contains(user, part) {
			t.Errorf("the prompt lacks %q:\n%s", part, user)
		}
	}
	if n := len(srv.Requests()); n > 3 { // show (status), chat; nothing else
		t.Errorf("%d requests for one edit", n)
	}
}

// A client that can confirm annotated edits (VS Code) gets one it shows as
// a diff before applying.
func TestEditIsAnnotatedForClientsThatConfirm(t *testing.T) {
	srv := editServer(t)
	caps := `{"workspace":{"applyEdit":true,"workspaceEdit":{"documentChanges":true,"changeAnnotationSupport":{"groupsOnLabel":true}}}}`
	c := startClient(t, srv, editSettings(), clientOpts{caps: caps})
	c.open(goURI, "go", editText)
	srv.Enqueue(llmtest.Reply(llmtest.Text("\treturn 2\n")))
	c.call("workspace/executeCommand", map[string]any{"command": commandEdit, "arguments": []any{EditArgs{URI: goURI, Range: editRange, Instruction: "constant"}}}, nil)
	if len(c.edits) != 1 {
		t.Fatalf("edits %+v", c.edits)
	}
	e := c.edits[0].Edit
	if len(e.DocumentChanges) != 1 || len(e.DocumentChanges[0].Edits) != 1 || e.DocumentChanges[0].TextDocument.Version != 1 ||
		e.DocumentChanges[0].Edits[0].NewText != "\treturn 2\n" || !e.ChangeAnnotations["olly"].NeedsConfirmation {
		t.Errorf("edit %+v", e)
	}
}

func TestEditErrors(t *testing.T) {
	srv := editServer(t)
	c := startClient(t, srv, editSettings(), clientOpts{})
	c.open(goURI, "go", editText)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	empty := lsp.Range{Start: editRange.Start, End: editRange.Start}
	cases := []struct {
		name string
		args any
		want string
	}{
		{"no instruction", EditArgs{URI: goURI, Range: editRange}, "needs an instruction"},
		{"empty selection", EditArgs{URI: goURI, Range: empty, Instruction: "x"}, "select the code to edit first"},
		{"closed document", EditArgs{URI: "file:///w/gone.go", Range: editRange, Instruction: "x"}, "is not open"},
		{"bad argument", "not an object", "argument"},
	}
	for _, tc := range cases {
		err := c.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": commandEdit, "arguments": []any{tc.args}}, nil)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// The editor declines: the command fails and says so.
	c.mu.Lock()
	c.refuse = true
	c.mu.Unlock()
	srv.Enqueue(llmtest.Reply(llmtest.Text("\treturn 2\n")))
	err := c.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": commandEdit, "arguments": []any{EditArgs{URI: goURI, Range: editRange, Instruction: "x"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "the person said no") {
		t.Errorf("declined edit: %v", err)
	}
	if srv.Pending() != 0 {
		t.Errorf("%d scripted replies unused", srv.Pending())
	}
}

// Editors whose code actions cannot ask for text (Helix) put the
// instruction in the selection as an "olly:" comment.
func TestInstructionFromTheSelection(t *testing.T) {
	srv := editServer(t)
	c := startClient(t, srv, editSettings(), clientOpts{})
	text := "package main\n\n// olly: make it return 2\nfunc two() int { return 1 }\n"
	c.open(goURI, "go", text)
	rng := lsp.Range{Start: lsp.Position{Line: 2}, End: lsp.Position{Line: 4}}
	srv.Enqueue(llmtest.Reply(llmtest.Text("func two() int { return 2 }")))
	c.call("workspace/executeCommand", map[string]any{"command": commandEdit, "arguments": []any{EditArgs{URI: goURI, Range: rng}}}, nil)
	if len(c.edits) != 1 || c.edits[0].Edit.Changes[goURI][0].NewText != "func two() int { return 2 }\n" {
		t.Fatalf("edits %+v", c.edits)
	}
	user := srv.LastRequest("/api/chat").Messages[1].Content
	if !strings.Contains(user, "Instruction: make it return 2") || strings.Contains(user, "<selection>\n// olly:") {
		t.Errorf("prompt:\n%s", user)
	}
}
