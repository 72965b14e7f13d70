package lspserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/lsp"
)

func rangeOf(l1, c1, l2, c2 uint32) *lsp.Range {
	return &lsp.Range{Start: lsp.Position{Line: l1, Character: c1}, End: lsp.Position{Line: l2, Character: c2}}
}

// FuzzWindows: the windows are the text just before and after the cursor,
// within their budgets, on rune boundaries.
func FuzzWindows(f *testing.F) {
	f.Add("package main\n\nfunc f() {\n\t\n}\n", 25, 10, 5)
	f.Add("ééé\r\n\x00", 3, 1, 1)
	f.Fuzz(func(t *testing.T, text string, off, pre, suf int) {
		if off < 0 || off > len(text) || pre < 0 || suf < 0 {
			return
		}
		p, s := windows(text, off, pre, suf)
		if !strings.HasSuffix(text[:off], p) || !strings.HasPrefix(text[off:], s) || len(p) > pre || len(s) > suf {
			t.Fatalf("windows(%q, %d, %d, %d) = %q, %q", text, off, pre, suf, p, s)
		}
		if utf8.ValidString(text[:off]) && utf8.ValidString(text[off:]) && (!utf8.ValidString(p) || !utf8.ValidString(s)) {
			t.Fatalf("a window splits a rune: %q %q", p, s)
		}
	})
}

// FuzzClean: cleaning only ever shortens the model's text, and a one-line
// completion has no line break.
func FuzzClean(f *testing.F) {
	f.Add("return 1\n}\n", "\t", "", "\n}\n")
	f.Add("a, b)\nx", "f(", ")", ")\n")
	f.Fuzz(func(t *testing.T, out, linePrefix, lineRest, suffix string) {
		p := &prompt{linePrefix: linePrefix, lineRest: lineRest, suffix: suffix, multiLine: strings.TrimSpace(lineRest) == ""}
		got := clean(out, p)
		if !strings.HasPrefix(out, got) {
			t.Fatalf("clean(%q) = %q is not a prefix of the model's text", out, got)
		}
		if !p.multiLine && strings.ContainsAny(got, "\r\n") {
			t.Fatalf("one-line completion %q", got)
		}
	})
}

// FuzzDocumentChanges: any change an editor sends is applied or refused,
// never a panic.
func FuzzDocumentChanges(f *testing.F) {
	f.Add("hello\nworld\n", uint32(0), uint32(2), uint32(1), uint32(3), "X")
	f.Fuzz(func(t *testing.T, text string, l1, c1, l2, c2 uint32, ins string) {
		d := &document{}
		d.set(1, text)
		_ = d.apply(2, []contentChange{{Range: rangeOf(l1, c1, l2, c2), Text: ins}})
	})
}

// FuzzMessages sends the server one arbitrary message after initialize:
// whatever it is, the server neither crashes nor stops answering.
func FuzzMessages(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.go","text":"x\n","version":1}}}`)
	f.Add(`{"jsonrpc":"2.0","id":5,"method":"textDocument/inlineCompletion","params":{"textDocument":{"uri":"file:///a.go"},"position":{"line":9,"character":99}}}`)
	f.Add(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":5},"end":{"line":0,"character":1}},"text":"y"}]}}`)
	f.Add(`{"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"olly.edit","arguments":[null]}}`)
	f.Add(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"x":1}}}`)
	f.Fuzz(func(t *testing.T, body string) {
		p, err := ollama.New("http://127.0.0.1:1", ollama.WithRetry(llm.RetryPolicy{}))
		if err != nil {
			t.Fatal(err)
		}
		serverEnd, clientEnd := net.Pipe()
		served := make(chan struct{})
		set := testSettings()
		set.Model, set.LatencyBudget = "m", 50*time.Millisecond
		go func() {
			defer close(served)
			_ = Serve(context.Background(), serverEnd, Options{Provider: p, Settings: set})
		}()
		conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(clientEnd, lsp.Codec()), jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			return nil, nil
		}))
		defer func() {
			_ = conn.Close()
			<-served
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(clientEnd, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			return // the server closed the connection on a malformed frame: allowed
		}
		// Either the server answers, or (a frame that is not JSON-RPC) it
		// has closed the connection and Serve has returned.
		var actions []codeAction
		err = conn.Call(ctx, "textDocument/codeAction", codeActionParams{TextDocument: lsp.TextDocumentIdentifier{URI: "file:///none.go"}}, &actions)
		var rpcErr *jsonrpc2.Error
		if err == nil || errors.As(err, &rpcErr) {
			return
		}
		select {
		case <-served:
		case <-ctx.Done():
			t.Fatalf("after %q the server neither answers nor closes: %v", body, err)
		}
	})
}
