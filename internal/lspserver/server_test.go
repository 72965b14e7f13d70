package lspserver

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/lsp"
)

const goURI = lsp.DocumentURI("file:///w/add.go")

const goText = "package main\n\nfunc add(a, b int) int {\n\t\n}\n"

func TestInlineCompletionSendsPrefixAndSuffix(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(t, srv, set, clientOpts{})
	if st := c.status(); st.Model != "qwen2.5-coder:1.5b" || st.Mode != "insert" {
		t.Errorf("status %+v", st)
	}
	c.open(goURI, "go", goText)
	// The model writes the closing brace again; it is already there.
	srv.Enqueue(llmtest.Reply(llmtest.Text("return a"), llmtest.Text(" + b\n}")))
	got := c.inline(goURI, 3, 1)
	if diff := cmp.Diff([]string{"return a + b"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	r := srv.LastRequest("/api/generate")
	if r.Prompt != "package main\n\nfunc add(a, b int) int {\n\t" || r.Suffix != "\n}\n" {
		t.Errorf("prompt %q suffix %q", r.Prompt, r.Suffix)
	}
	if r.Raw || r.KeepAlive != "30m" || r.Model != "qwen2.5-coder:1.5b" || *r.Options.NumPredict != 500 || *r.Options.Temperature != 0.1 {
		t.Errorf("request %+v", r)
	}
	if slices.Contains(r.Options.Stop, "\n") {
		t.Errorf("a completion at a line end may run over lines, but stop is %q", r.Options.Stop)
	}
}

func TestRawFIMForAModelWithoutInsert(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("starcoder2:3b", llmtest.Caps("completion"))
	set := testSettings()
	set.Model = "starcoder2:3b"
	c := startClient(t, srv, set, clientOpts{})
	if st := c.status(); st.Mode != "raw" {
		t.Errorf("status %+v", st)
	}
	c.open(goURI, "go", goText)
	srv.Enqueue(llmtest.Reply(llmtest.Text("return a + b<file_sep>main.go\npackage")))
	if got := c.inline(goURI, 3, 1); !slices.Equal(got, []string{"return a + b"}) {
		t.Errorf("items %q", got)
	}
	r := srv.LastRequest("/api/generate")
	want := "<fim_prefix>package main\n\nfunc add(a, b int) int {\n\t<fim_suffix>\n}\n<fim_middle>"
	if !r.Raw || r.Prompt != want || r.Suffix != "" {
		t.Errorf("raw %v prompt %q suffix %q", r.Raw, r.Prompt, r.Suffix)
	}
	if !slices.Contains(r.Options.Stop, "<file_sep>") || !slices.Contains(r.Options.Stop, "<|endoftext|>") {
		t.Errorf("stop %q", r.Options.Stop)
	}
}

func TestMidLineCompletionIsOneLine(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", "package main\n\nfunc main() {\n\tfmt.Println()\n}\n")
	// The model repeats the ")" after the cursor and runs on.
	srv.Enqueue(llmtest.Reply(llmtest.Text(`"hi")` + "\n\tfmt.Println(\"again\")")))
	if got := c.inline(goURI, 3, 13); !slices.Equal(got, []string{`"hi"`}) {
		t.Errorf("items %q", got)
	}
	r := srv.LastRequest("/api/generate")
	if !slices.Contains(r.Options.Stop, "\n") || r.Suffix != ")\n}\n" {
		t.Errorf("stop %q suffix %q", r.Options.Stop, r.Suffix)
	}
}

// The bar: type again before the model answers, and the first request is
// canceled at the model server, not just ignored.
func TestTypingCancelsTheRequestInFlight(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", goText)
	srv.Enqueue(llmtest.Reply(llmtest.Text("ret"), llmtest.Stall()), llmtest.Reply(llmtest.Text("urn a + b")))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := c.conn.DispatchCall(ctx, "textDocument/inlineCompletion", inlineParams(goURI, 3, 1, triggerAutomatic))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitRequests(ctx, "/api/generate", 1); err != nil {
		t.Fatal(err)
	}
	c.change(goURI, 2, "package main\n\nfunc add(a, b int) int {\n\tret\n}\n")
	if err := srv.WaitCanceled(ctx, 1); err != nil {
		t.Fatalf("the model server never saw the first request canceled: %v", err)
	}
	var rpcErr *jsonrpc2.Error
	if err := first.Wait(ctx, nil); !errors.As(err, &rpcErr) || rpcErr.Code != codeRequestCancelled {
		t.Errorf("first request: %v, want code %d", err, codeRequestCancelled)
	}
	if got := c.inline(goURI, 3, 4); !slices.Equal(got, []string{"urn a + b"}) {
		t.Errorf("second completion %q", got)
	}
	if r := srv.LastRequest("/api/generate"); r.Prompt != "package main\n\nfunc add(a, b int) int {\n\tret" {
		t.Errorf("second prompt %q", r.Prompt)
	}
}

func TestCancelRequestCancelsTheModelCall(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", goText)
	srv.Enqueue(llmtest.Hang())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := c.conn.DispatchCall(ctx, "textDocument/inlineCompletion", inlineParams(goURI, 3, 1, triggerInvoked), jsonrpc2.PickID(jsonrpc2.ID{Num: 77}))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitRequests(ctx, "/api/generate", 1); err != nil {
		t.Fatal(err)
	}
	c.notify("$/cancelRequest", map[string]any{"id": 77})
	if err := srv.WaitCanceled(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var rpcErr *jsonrpc2.Error
	if err := w.Wait(ctx, nil); !errors.As(err, &rpcErr) || rpcErr.Code != codeRequestCancelled {
		t.Errorf("got %v", err)
	}
}

func TestLatencyBudgetDropsASlowCompletion(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	// Long enough for the request to reach the fake server under load
	// (with 50 ms, CI at load 26 gave up before sending it, so there was
	// no call at the model to cancel); the reply stalls for ever.
	set.LatencyBudget = time.Second
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", goText)
	srv.Enqueue(llmtest.Reply(llmtest.Text("return"), llmtest.Stall()))
	if got := c.inline(goURI, 3, 1); len(got) != 0 {
		t.Errorf("a completion over the budget was offered: %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if srv.LastRequest("/api/generate") == nil {
		t.Fatalf("the completion request never reached the model within the budget")
	}
	if err := srv.WaitCanceled(ctx, 1); err != nil {
		t.Fatalf("the model call was not canceled at the budget: %v", err)
	}
}

func TestDebounceSkipsTheModelForSupersededKeystrokes(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	set.Debounce = time.Hour // only a newer keystroke ends the first wait
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", goText)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := c.conn.DispatchCall(ctx, "textDocument/inlineCompletion", inlineParams(goURI, 3, 1, triggerAutomatic))
	if err != nil {
		t.Fatal(err)
	}
	c.change(goURI, 2, "package main\n\nfunc add(a, b int) int {\n\tr\n}\n")
	var rpcErr *jsonrpc2.Error
	if err := w.Wait(ctx, nil); !errors.As(err, &rpcErr) || rpcErr.Code != codeRequestCancelled {
		t.Errorf("got %v", err)
	}
	if r := srv.LastRequest("/api/generate"); r != nil {
		t.Errorf("a debounced keystroke reached the model: %+v", r)
	}
}

func TestEnableAutoCompleteOff(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	set.Enabled = false
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", goText)
	if got := c.inline(goURI, 3, 1); len(got) != 0 {
		t.Errorf("automatic completion with enableAutoComplete off: %q", got)
	}
	var list completionList
	c.call("textDocument/completion", inlineParams(goURI, 3, 1, 1), &list)
	if len(list.Items) != 0 || srv.LastRequest("/api/generate") != nil {
		t.Errorf("completion with enableAutoComplete off: %+v", list)
	}
	// Asked for (Alt+\ in VS Code), it still completes.
	srv.Enqueue(llmtest.Reply(llmtest.Text("return a + b")))
	var inv inlineCompletionList
	c.call("textDocument/inlineCompletion", inlineParams(goURI, 3, 1, triggerInvoked), &inv)
	if len(inv.Items) != 1 || inv.Items[0].InsertText != "return a + b" {
		t.Errorf("invoked: %+v", inv)
	}
}

func TestCompletionFallbackItem(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(t, srv, set, clientOpts{})
	c.open(goURI, "go", goText)
	srv.Enqueue(llmtest.Reply(llmtest.Text("sum := a + b\n\treturn sum")))
	var list completionList
	c.call("textDocument/completion", inlineParams(goURI, 3, 1, 1), &list)
	if len(list.Items) != 1 {
		t.Fatalf("items %+v", list)
	}
	it := list.Items[0]
	at := lsp.Position{Line: 3, Character: 1}
	if it.Label != "sum := a + b …" || it.TextEdit.NewText != "sum := a + b\n\treturn sum" || it.TextEdit.Range != (lsp.Range{Start: at, End: at}) {
		t.Errorf("item %+v", it)
	}
}

func TestPicksAModelWithInsertWhenNoneIsSet(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"))
	srv.AddModel("starcoder2:3b", llmtest.Caps("completion"))
	srv.AddModel("qwen2.5-coder:7b", llmtest.Caps("completion", "insert"))
	c := startClient(t, srv, testSettings(), clientOpts{})
	if st := c.status(); st.Model != "qwen2.5-coder:7b" || st.Mode != "insert" {
		t.Errorf("status %+v", st)
	}
}

func TestNoModelSaysWhatToDo(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"))
	c := startClient(t, srv, testSettings(), clientOpts{})
	st := c.status()
	if st.Model != "" || !strings.Contains(st.Message, "ollama pull qwen2.5-coder") {
		t.Errorf("status %+v", st)
	}
	c.open(goURI, "go", goText)
	if got := c.inline(goURI, 3, 1); len(got) != 0 {
		t.Errorf("items %q", got)
	}
}

// An OpenAI-compatible server gets prompt and suffix on /v1/completions;
// one that refuses the suffix (vLLM) gets the family's tokens from then on.
func TestOpenAISuffixThenRawWhenRefused(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithFlavor(llmtest.FlavorVLLM))
	srv.AddModel("Qwen/Qwen2.5-Coder-1.5B", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "Qwen/Qwen2.5-Coder-1.5B"
	c := startClient(t, srv, set, clientOpts{dialect: "openai"})
	if st := c.status(); st.Mode != "suffix" {
		t.Errorf("status %+v", st)
	}
	c.open(goURI, "go", goText)
	if got := c.inline(goURI, 3, 1); len(got) != 0 {
		t.Errorf("items %q", got)
	}
	if r := srv.LastRequest("/v1/completions"); r.Suffix != "\n}\n" || r.Prompt != "package main\n\nfunc add(a, b int) int {\n\t" {
		t.Errorf("first request %+v", r)
	}
	srv.Enqueue(llmtest.Reply(llmtest.Text("return a + b")))
	if got := c.inline(goURI, 3, 1); !slices.Equal(got, []string{"return a + b"}) {
		t.Errorf("items %q", got)
	}
	r := srv.LastRequest("/v1/completions")
	if r.Suffix != "" || !strings.HasPrefix(r.Prompt, "<|fim_prefix|>package main") || !strings.HasSuffix(r.Prompt, "<|fim_suffix|>\n}\n<|fim_middle|>") {
		t.Errorf("second request: prompt %q suffix %q", r.Prompt, r.Suffix)
	}
}

func TestOtherOpenFilesLendContext(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(t, srv, set, clientOpts{})
	c.open("file:///w/util/math.go", "go", "package util\n\n// Double returns twice n.\nfunc Double(n int) int { return 2 * n }\n")
	c.open(goURI, "go", goText)
	srv.Enqueue(llmtest.Reply(llmtest.Text("return util.Double(a) + b")))
	c.inline(goURI, 3, 1)
	r := srv.LastRequest("/api/generate")
	want := "// Path: util/math.go\n// package util\n// \n// // Double returns twice n.\n// func Double(n int) int { return 2 * n }\n\npackage main\n\nfunc add(a, b int) int {\n\t"
	if r.Prompt != want {
		t.Errorf("prompt (-want +got):\n%s", cmp.Diff(want, r.Prompt))
	}
}

func TestCompletionItemsOnlyForClientsWithoutInline(t *testing.T) {
	srv := llmtest.New(t)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	for _, tc := range []struct {
		caps  string
		items bool
	}{
		{`{}`, true},
		{`{"textDocument":{"inlineCompletion":{"dynamicRegistration":false}}}`, false},
	} {
		c := startClient(t, srv, set, clientOpts{caps: tc.caps})
		if got := c.init.Capabilities.CompletionProvider != nil; got != tc.items {
			t.Errorf("client %s: completionProvider %v, want %v", tc.caps, got, tc.items)
		}
	}
}
