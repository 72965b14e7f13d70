package rpcclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/rpcproto"
)

// TestSetSettingMovesTheNextPromptToAnotherServer changes baseUrl through
// set_setting in a running olly: the next prompt goes to the new server,
// and the state's model object names it, without a restart.
func TestSetSettingMovesTheNextPromptToAnotherServer(t *testing.T) {
	e := newEnv(t)
	srvB := llmtest.New(t)
	srvB.AddModel(testModel, llmtest.Caps("completion", "tools"), llmtest.ContextLength(32768))
	srvB.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"mixed","needsWrite":false,"reasoning":"test"}`)))
	e.reply(llmtest.Reply(llmtest.Text("Server A here. [TASK_COMPLETE]")))
	srvB.Enqueue(llmtest.Reply(llmtest.Text("Server B here. [TASK_COMPLETE]")))

	// The address comes from the global settings file, which set_setting
	// writes (a --base-url flag would override it).
	var configHome string
	for _, kv := range e.environ {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			configHome = v
		}
	}
	global := filepath.Join(configHome, "olly", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(global), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(global, []byte("baseUrl: "+e.srv.URL()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	c, err := Start(ctx, Options{Binary: ollyBin, Env: e.environ,
		Args: []string{"--cwd", e.ws, "--model", testModel, "--set", "embedding.model="}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("olly did not end cleanly: %v\nstderr: %s", err, c.Stderr())
		}
	})
	w := watch(t, c)
	if _, err := c.Prompt(ctx, PromptRequest{Message: "who are you?"}); err != nil {
		t.Fatal(err)
	}
	if fin := w.finished(); fin.Status != event.FinishDone {
		t.Fatalf("first turn: %+v", fin)
	}

	var res rpcproto.SetSettingResult
	if err := c.Call(ctx, rpcproto.CmdSetSetting, rpcproto.SetSettingRequest{Key: "baseUrl", Value: srvB.URL()}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Applies != rpcproto.AppliesNextTurn || res.File != global {
		t.Errorf("set_setting: %+v", res)
	}
	st, err := c.GetState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Model == nil || st.Model.BaseURL != srvB.URL() {
		t.Errorf("get_state's model after the change: %+v, want baseUrl %s", st.Model, srvB.URL())
	}

	if _, err := c.Prompt(ctx, PromptRequest{Message: "and now?"}); err != nil {
		t.Fatal(err)
	}
	if fin := w.finished(); fin.Status != event.FinishDone {
		t.Fatalf("second turn: %+v", fin)
	}
	if n := len(e.turnRequests()); n != 1 {
		t.Errorf("server A got %d turn requests, want the first prompt's only", n)
	}
	var toB int
	for _, r := range srvB.Requests() {
		if r.Path == "/api/chat" && len(r.Format) == 0 {
			toB++
		}
	}
	if toB != 1 {
		t.Errorf("server B got %d turn requests, want the second prompt's", toB)
	}
}
