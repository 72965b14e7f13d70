package lspserver

import (
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/llm/openai"
	"github.com/olly-agent/olly/internal/lsp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testSettings are the defaults of olly's settings, without the debounce
// (tests send one keystroke at a time) and with a generous budget.
func testSettings() Settings {
	return Settings{
		Temperature: 0.1, MaxTokens: 500, EditTemperature: 0.7, EditMaxTokens: 2048,
		Enabled: true, PrefixChars: 2000, SuffixChars: 1000, ContextChars: 1500,
		LatencyBudget: 10 * time.Second, KeepAlive: "30m",
	}
}

// client is a scripted editor: it speaks to a Server over a pipe, answers
// workspace/applyEdit, and records olly/status.
type client struct {
	t      testing.TB
	conn   *jsonrpc2.Conn
	served chan struct{}

	mu       sync.Mutex
	edits    []applyEditParams
	statuses []StatusParams
	messages []string
	refuse   bool
	statusCh chan StatusParams
	init     initializeResult
}

type clientOpts struct {
	dialect string // "ollama" (default) or "openai"
	caps    string // the client's capabilities, JSON
}

func startClient(t testing.TB, srv *llmtest.Server, set Settings, o clientOpts) *client {
	t.Helper()
	var p llm.Provider
	var err error
	if o.dialect == "openai" {
		p, err = openai.New(srv.URL(), openai.WithRetry(llm.RetryPolicy{}))
	} else {
		p, err = ollama.New(srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	}
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := net.Pipe()
	c := &client{t: t, served: make(chan struct{}), statusCh: make(chan StatusParams, 8)}
	go func() {
		defer close(c.served)
		if err := Serve(context.Background(), serverEnd, Options{Provider: p, Settings: set, Version: "test"}); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(clientEnd, lsp.Codec()), c)
	t.Cleanup(c.close)
	caps := o.caps
	if caps == "" {
		caps = `{}`
	}
	c.call("initialize", json.RawMessage(`{"processId":null,"rootUri":null,"capabilities":`+caps+`}`), &c.init)
	if !c.init.Capabilities.InlineCompletionProvider || c.init.Capabilities.TextDocumentSync.Change != 1 {
		t.Fatalf("capabilities %+v", c.init.Capabilities)
	}
	c.notify("initialized", struct{}{})
	return c
}

// close ends the session as an editor does, and waits for the server.
func (c *client) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.conn.Call(ctx, "shutdown", nil, nil)
	_ = c.conn.Notify(ctx, "exit", nil)
	select {
	case <-c.served:
	case <-ctx.Done():
		c.t.Error("the server did not stop after exit")
	}
	_ = c.conn.Close()
}

// Handle answers the server's requests and records its notifications.
func (c *client) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	switch req.Method {
	case "workspace/applyEdit":
		var p applyEditParams
		_ = json.Unmarshal(*req.Params, &p)
		c.mu.Lock()
		c.edits = append(c.edits, p)
		refuse := c.refuse
		c.mu.Unlock()
		_ = conn.Reply(ctx, req.ID, applyEditResult{Applied: !refuse, FailureReason: map[bool]string{true: "the person said no"}[refuse]})
	case "olly/status":
		var p StatusParams
		_ = json.Unmarshal(*req.Params, &p)
		c.mu.Lock()
		c.statuses = append(c.statuses, p)
		c.mu.Unlock()
		c.statusCh <- p
	case "window/showMessage":
		var p showMessageParams
		_ = json.Unmarshal(*req.Params, &p)
		c.mu.Lock()
		c.messages = append(c.messages, p.Message)
		c.mu.Unlock()
	}
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// status waits for the server's olly/status.
func (c *client) status() StatusParams {
	c.t.Helper()
	select {
	case p := <-c.statusCh:
		return p
	case <-time.After(10 * time.Second):
		c.t.Fatal("no olly/status")
	}
	return StatusParams{}
}

func (c *client) open(uri lsp.DocumentURI, lang, text string) {
	c.notify("textDocument/didOpen", didOpenParams{TextDocument: lsp.TextDocumentItem{URI: uri, LanguageID: lang, Version: 1, Text: text}})
}

func (c *client) change(uri lsp.DocumentURI, version int32, text string) {
	c.notify("textDocument/didChange", didChangeParams{TextDocument: lsp.VersionedTextDocumentIdentifier{URI: uri, Version: version}, ContentChanges: []contentChange{{Text: text}}})
}

func inlineParams(uri lsp.DocumentURI, line, char uint32, trigger int) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     lsp.Position{Line: line, Character: char},
		"context":      map[string]any{"triggerKind": trigger},
	}
}

// inline asks for an inline completion and returns the items' texts.
func (c *client) inline(uri lsp.DocumentURI, line, char uint32) []string {
	c.t.Helper()
	var list inlineCompletionList
	c.call("textDocument/inlineCompletion", inlineParams(uri, line, char, triggerAutomatic), &list)
	var out []string
	for _, it := range list.Items {
		out = append(out, it.InsertText)
	}
	return out
}
