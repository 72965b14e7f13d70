package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fake language server is this test binary run again with
// fakeServerEnv set (see TestMain): a real process on real pipes, so
// crashes, slow starts and hangs are what olly would meet. Its behaviour is
// chosen by comma-separated flags in fakeServerEnv:
//
//	slowstart=DUR   sleep before answering initialize
//	crashonce=M     exit(3) on the first request M (a marker file in the
//	                log's directory remembers it crashed)
//	crash=M         exit(3) on every request M
//	hang=M          never answer M (answer $/cancelRequest with an error)
//	nodiag          never publish diagnostics
//	pull            offer pull diagnostics (and never push)
//	die=MSG         print "error: MSG" and a backtrace line to stderr and
//	                exit(1) at once
//	ask             after initialized, ask the client for configuration and
//	                register a capability, logging the answers
//
// Documents containing "BAD" get an error diagnostic there. Every message
// received is logged, one line each, to the file in fakeLogEnv.
const (
	fakeServerEnv = "OLLY_FAKE_LSP"
	fakeLogEnv    = "OLLY_FAKE_LSP_LOG"
)

type fakeServer struct {
	flags map[string]string
	out   *bufio.Writer
	log   *os.File
	docs  map[string]string
	vers  map[string]int
}

func runFakeServer() int {
	f := &fakeServer{flags: map[string]string{}, out: bufio.NewWriter(os.Stdout), docs: map[string]string{}, vers: map[string]int{}}
	for _, kv := range strings.Split(os.Getenv(fakeServerEnv), ",") {
		k, v, _ := strings.Cut(kv, "=")
		f.flags[k] = v
	}
	if p := os.Getenv(fakeLogEnv); p != "" {
		lf, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.log = lf
			defer lf.Close()
		}
	}
	if msg, ok := f.flags["die"]; ok {
		fmt.Fprintln(os.Stderr, "error: "+msg)
		fmt.Fprintln(os.Stderr, "   0: main.start")
		return 1
	}
	in := bufio.NewReader(os.Stdin)
	for {
		body, err := readFrame(in)
		if err != nil {
			return 0 // the client closed stdin
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(body, &msg) != nil {
			return 2
		}
		if msg.Method == "" {
			f.logf("response id=%s result=%s", msg.ID, msg.Result)
			continue
		}
		f.logf("%s", msg.Method)
		if code, exit := f.handle(msg.Method, msg.ID, msg.Params); exit {
			return code
		}
	}
}

func (f *fakeServer) logf(format string, a ...any) {
	if f.log != nil {
		fmt.Fprintf(f.log, format+"\n", a...)
	}
}

func (f *fakeServer) send(v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintf(f.out, "Content-Length: %d\r\n\r\n%s", len(data), data)
	f.out.Flush()
}

func (f *fakeServer) reply(id json.RawMessage, result any) {
	f.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (f *fakeServer) handle(method string, id, params json.RawMessage) (int, bool) {
	if m, ok := f.flags["crash"]; ok && m == method {
		return 3, true
	}
	if m, ok := f.flags["crashonce"]; ok && m == method {
		marker := filepath.Join(filepath.Dir(os.Getenv(fakeLogEnv)), "crashed")
		if _, err := os.Stat(marker); err != nil {
			_ = os.WriteFile(marker, nil, 0o644)
			return 3, true
		}
	}
	if m, ok := f.flags["hang"]; ok && m == method {
		return 0, false
	}
	switch method {
	case "initialize":
		if d, err := time.ParseDuration(f.flags["slowstart"]); err == nil {
			time.Sleep(d)
		}
		caps := map[string]any{"definitionProvider": true, "hoverProvider": true, "referencesProvider": true,
			"textDocumentSync": map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": true}}}
		if _, ok := f.flags["pull"]; ok {
			caps["diagnosticProvider"] = map[string]any{"identifier": "fake", "interFileDependencies": false, "workspaceDiagnostics": false}
		}
		f.reply(id, map[string]any{"capabilities": caps, "serverInfo": map[string]any{"name": "fake", "version": "1"}})
	case "initialized":
		if _, ok := f.flags["ask"]; ok {
			f.send(map[string]any{"jsonrpc": "2.0", "id": 901, "method": "workspace/configuration",
				"params": map[string]any{"items": []any{map[string]any{"section": "fake"}, map[string]any{"section": "other"}}}})
			f.send(map[string]any{"jsonrpc": "2.0", "id": 902, "method": "client/registerCapability",
				"params": map[string]any{"registrations": []any{map[string]any{"id": "r1", "method": "textDocument/diagnostic",
					"registerOptions": map[string]any{"identifier": "registered"}}}}})
			f.send(map[string]any{"jsonrpc": "2.0", "id": 903, "method": "window/workDoneProgress/create",
				"params": map[string]any{"token": "t1"}})
			f.send(map[string]any{"jsonrpc": "2.0", "id": 904, "method": "workspace/workspaceFolders"})
			f.send(map[string]any{"jsonrpc": "2.0", "id": 905, "method": "window/showMessageRequest",
				"params": map[string]any{"type": 3, "message": "choose", "actions": []any{map[string]any{"title": "yes"}}}})
			f.send(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"type": 3, "message": "fake says hello"}})
		}
	case "textDocument/didOpen", "textDocument/didChange":
		f.document(method, params)
	case "textDocument/definition":
		var p TextDocumentPositionParams
		_ = json.Unmarshal(params, &p)
		f.reply(id, []Location{{URI: p.TextDocument.URI, Range: Range{Start: p.Position, End: p.Position}}})
	case "textDocument/hover":
		f.reply(id, map[string]any{"contents": map[string]any{"kind": "markdown", "value": "fake hover"}})
	case "textDocument/diagnostic":
		var p documentDiagnosticParams
		_ = json.Unmarshal(params, &p)
		f.reply(id, map[string]any{"kind": "full", "items": f.problems(string(p.TextDocument.URI))})
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(params, &p)
		f.logf("cancel id=%s", p.ID)
		f.send(map[string]any{"jsonrpc": "2.0", "id": p.ID, "error": map[string]any{"code": codeRequestCancelled, "message": "cancelled"}})
	case "shutdown":
		f.reply(id, nil)
	case "exit":
		return 0, true
	default:
		if len(id) > 0 {
			f.reply(id, nil)
		}
	}
	return 0, false
}

func (f *fakeServer) document(method string, params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
			Text    string `json:"text"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Text string `json:"text"`
		} `json:"contentChanges"`
	}
	_ = json.Unmarshal(params, &p)
	uri, text := p.TextDocument.URI, p.TextDocument.Text
	if method == "textDocument/didChange" && len(p.ContentChanges) > 0 {
		text = p.ContentChanges[len(p.ContentChanges)-1].Text
	}
	f.docs[uri], f.vers[uri] = text, p.TextDocument.Version
	_, nodiag := f.flags["nodiag"]
	_, pull := f.flags["pull"]
	if nodiag || pull {
		return
	}
	f.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
		"params": map[string]any{"uri": uri, "version": f.vers[uri], "diagnostics": f.problems(uri)}})
}

// problems puts an error at every "BAD" in the document.
func (f *fakeServer) problems(uri string) []Diagnostic {
	out := []Diagnostic{}
	m := NewMapper([]byte(f.docs[uri]))
	text := f.docs[uri]
	for i := strings.Index(text, "BAD"); i >= 0; {
		start, _ := m.Position(i)
		end, _ := m.Position(i + 3)
		out = append(out, Diagnostic{Range: Range{Start: start, End: end}, Severity: SeverityError, Source: "fake", Message: "BAD is not allowed"})
		j := strings.Index(text[i+3:], "BAD")
		if j < 0 {
			break
		}
		i += 3 + j
	}
	return out
}

// fakeManager starts a manager whose only server is the fake, for files
// ending in .fk, with the given flags. It returns the manager, the
// workspace root and the fake's log file.
func fakeManager(t *testing.T, flags string, opts Options) (*Manager, string, string) {
	t.Helper()
	ws := copyFixture(t, "fakefixture")
	logDir := t.TempDir()
	logPath := filepath.Join(logDir, "fake.log")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts.Servers = []Server{{Language: "fake", Extensions: []string{".fk"}, Command: exe, Install: "it is this test binary"}}
	// A race-enabled binary sleeps a second at exit unless told not to.
	opts.Env = append(os.Environ(), fakeServerEnv+"="+flags, fakeLogEnv+"="+logPath, "GORACE=atexit_sleep_ms=0")
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	m := NewManager(ws, opts)
	t.Cleanup(func() { closeManager(t, m) })
	return m, ws.Primary().Path, logPath
}

// fakeLog returns the lines the fake logged.
func fakeLog(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
