package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeOllama answers /api/chat like fakellm's Ollama dialect: a tool call
// per request until steps tool turns are in the history, then an answer.
type fakeOllama struct {
	steps int
	mu    sync.Mutex
	dir   string
	seen  []map[string]any
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, "bad json: "+err.Error(), 400)
		return
	}
	f.mu.Lock()
	f.seen = append(f.seen, req)
	f.mu.Unlock()
	turns := 0
	for _, m := range req["messages"].([]any) {
		if tc, ok := m.(map[string]any)["tool_calls"].([]any); ok && len(tc) > 0 {
			turns++
		}
	}
	enc := json.NewEncoder(w)
	if turns < f.steps {
		cmd := fmt.Sprintf("echo step-%d >> %s; echo out-%d", turns+1, filepath.Join(f.dir, "steps.txt"), turns+1)
		_ = enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": "",
			"tool_calls": []any{map[string]any{"function": map[string]any{"name": "run_terminal_command", "arguments": map[string]any{"command": cmd}}}}}, "done": false})
	} else {
		_ = enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": "All "}, "done": false})
		_ = enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": "done."}, "done": false})
	}
	_ = enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
}

const base = `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"Run the steps."}],` +
	`"tools":[{"type":"function","function":{"name":"run_terminal_command"}}],"stream":false,"options":{"num_ctx":8}}`

func TestRunRepeatsOllysSteps(t *testing.T) {
	f := &fakeOllama{steps: 5, dir: t.TempDir()}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var out strings.Builder
	n, err := run(srv.URL, []byte(base), 100, &out)
	if err != nil || n != 5 {
		t.Fatalf("run: %d steps, %v", n, err)
	}
	if out.String() != "All done.\n" {
		t.Errorf("answer printed %q", out.String())
	}
	got, _ := os.ReadFile(filepath.Join(f.dir, "steps.txt"))
	if string(got) != "step-1\nstep-2\nstep-3\nstep-4\nstep-5\n" {
		t.Errorf("steps.txt = %q", got)
	}
	if len(f.seen) != 6 {
		t.Fatalf("%d requests, want 6", len(f.seen))
	}
	for i, req := range f.seen {
		msgs := req["messages"].([]any)
		if len(msgs) != 2+3*i {
			t.Errorf("request %d has %d messages, want %d", i+1, len(msgs), 2+3*i)
		}
		if req["stream"] != true || req["model"] != "m" || req["options"] == nil || req["tools"] == nil {
			t.Errorf("request %d lost the base's fields: %v", i+1, req)
		}
		if i == 0 {
			continue
		}
		tool := msgs[len(msgs)-2].(map[string]any)
		if want := fmt.Sprintf("out-%d\n\n[exit code 0, 0s]", i); tool["role"] != "tool" || tool["content"] != want {
			t.Errorf("request %d: tool result %v, want content %q", i+1, tool, want)
		}
		if ctl := msgs[len(msgs)-1].(map[string]any)["content"].(string); !strings.Contains(ctl, fmt.Sprintf(`"iteration":%d,`, i)) {
			t.Errorf("request %d: control message %q", i+1, ctl)
		}
	}
}

func TestRunStopsAtMaxSteps(t *testing.T) {
	f := &fakeOllama{steps: 1000, dir: t.TempDir()}
	srv := httptest.NewServer(f)
	defer srv.Close()
	n, err := run(srv.URL, []byte(base), 3, io.Discard)
	if err == nil || n != 3 {
		t.Fatalf("run: %d steps, %v; want 3 and an error", n, err)
	}
}

func TestRunReportsServerErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"model not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	if _, err := run(srv.URL, []byte(base), 3, io.Discard); err == nil || !strings.Contains(err.Error(), "model not found") {
		t.Fatalf("err = %v", err)
	}
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "{\"error\":\"boom\"}\n")
	}))
	defer srv2.Close()
	if _, err := run(srv2.URL, []byte(base), 3, io.Discard); err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v", err)
	}
}

func TestBadBase(t *testing.T) {
	for _, b := range []string{``, `[]`, `{"messages":[]}`, `{"model":"m"}`} {
		if _, err := run("http://127.0.0.1:1", []byte(b), 3, io.Discard); err == nil {
			t.Errorf("base %q: no error", b)
		}
	}
}

func TestLoadBaseFromDumpFolder(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"00001_POST_api_show.json": `{"model":"m"}`,
		"00002_POST_api_chat.json": `{"model":"m","messages":[{"role":"user","content":"title?"}]}`,
		"00003_POST_api_chat.json": base,
		"00004_POST_api_chat.json": `{"model":"m","messages":[],"tools":[{}]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := loadBase(dir)
	if err != nil || string(got) != base {
		t.Fatalf("loadBase = %q, %v", got, err)
	}
	if _, err := loadBase(t.TempDir()); err == nil {
		t.Error("an empty folder gave no error")
	}
	if _, err := loadBase(""); err == nil {
		t.Error("no -base gave no error")
	}
}
