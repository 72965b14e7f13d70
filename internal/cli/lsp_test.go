package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/lsp"
)

// pipeEnd is one end of the editor's stdio: what it reads and writes.
type pipeEnd struct {
	io.Reader
	io.WriteCloser
}

func (p pipeEnd) Close() error { return p.WriteCloser.Close() }

type notifications chan *jsonrpc2.Request

func (n notifications) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		n <- req
	}
}

// TestLSPCommand runs `olly lsp` as an editor does: over its stdin and
// stdout, with the settings from the command line, to one completion and
// exit. It opens no database.
func TestLSPCommand(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	srv.Enqueue(llmtest.Reply(llmtest.Text("return a + b")))
	e := newTestEnv(t)
	f, _, errOut := e.factory()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f.IO.In, f.IO.Out = inR, outW
	done := make(chan int, 1)
	go func() {
		done <- Execute(f, []string{"--cwd", e.ws, "lsp", "--base-url", srv.URL(), "--set", "completionMode.model=qwen2.5-coder:1.5b", "--set", "completion.debounce=0"})
		_ = outW.Close()
	}()
	notes := make(notifications, 8)
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(pipeEnd{outR, inW}, lsp.Codec()), notes)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var init struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
	}
	if err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, &init); err != nil || init.ServerInfo.Name != "olly" {
		t.Fatalf("initialize: %v %+v (stderr %s)", err, init, errOut)
	}
	_ = conn.Notify(ctx, "initialized", struct{}{})
	select {
	case n := <-notes:
		var st struct{ Model, Mode string }
		_ = json.Unmarshal(*n.Params, &st)
		if n.Method != "olly/status" || st.Model != "qwen2.5-coder:1.5b" || st.Mode != "insert" {
			t.Errorf("first notification %s %s", n.Method, *n.Params)
		}
	case <-ctx.Done():
		t.Fatal("no olly/status")
	}
	uri := lsp.DocumentURI("file://" + filepath.Join(e.ws, "add.go"))
	_ = conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": lsp.TextDocumentItem{URI: uri, LanguageID: "go", Version: 1, Text: "func add(a, b int) int {\n\t\n}\n"}})
	var list struct{ Items []struct{ InsertText string } }
	err := conn.Call(ctx, "textDocument/inlineCompletion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": lsp.Position{Line: 1, Character: 1}, "context": map[string]any{"triggerKind": 2}}, &list)
	if err != nil || len(list.Items) != 1 || list.Items[0].InsertText != "return a + b" {
		t.Fatalf("completion: %v %+v", err, list)
	}
	if err := srv.WaitRequests(ctx, "/api/generate", 2); err != nil {
		t.Errorf("the model was not loaded when the editor connected: %v", err)
	}
	_ = conn.Call(ctx, "shutdown", nil, nil)
	_ = conn.Notify(ctx, "exit", nil)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errOut)
		}
	case <-ctx.Done():
		t.Fatal("olly lsp did not exit")
	}
	_ = inW.Close()
	if _, err := os.Stat(filepath.Join(e.home, ".local", "share", "olly", "olly.db")); !os.IsNotExist(err) {
		t.Errorf("olly lsp touched the database: %v", err)
	}
	var generated, loads int
	for _, r := range srv.Requests() {
		switch {
		case r.Path != "/api/generate":
		case r.Prompt != "":
			generated++
		case r.KeepAlive == "30m":
			loads++ // the model loaded when the editor connected, kept warm
		}
	}
	if generated != 1 || loads != 1 {
		t.Errorf("%d completion calls and %d loads, want 1 each", generated, loads)
	}
}
