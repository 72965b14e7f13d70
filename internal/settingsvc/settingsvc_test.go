package settingsvc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

// fixture is a settings service over a temporary home and workspace, a
// store and the scripted model server.
type fixture struct {
	svc          *Service
	global, proj string
	home, ws     string
	srv          *llmtest.Server
	environ      []string
}

func newFixture(t *testing.T, global string, opts ...llmtest.Option) *fixture {
	t.Helper()
	f := &fixture{home: t.TempDir(), ws: t.TempDir(), srv: llmtest.New(t, opts...)}
	f.global = filepath.Join(f.home, ".config", "olly", "config.yaml")
	f.proj = filepath.Join(f.ws, ".olly", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(f.global), 0o700); err != nil {
		t.Fatal(err)
	}
	global = strings.ReplaceAll(global, "SERVER", f.srv.URL())
	if err := os.WriteFile(f.global, []byte(global), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	f.environ = []string{"HOME=" + f.home}
	f.svc = &Service{
		Load: func() (*config.Config, error) {
			return config.Load(config.LoadOptions{Workspace: f.ws, Home: f.home, Environ: f.environ})
		},
		NewProvider: func(cfg *config.Config) (llm.Provider, error) {
			return app.NewProviderWithRetry(cfg, llm.RetryPolicy{})
		},
		Models: st,
	}
	return f
}

func find(t *testing.T, list []rpcproto.Setting, key string) rpcproto.Setting {
	t.Helper()
	for _, s := range list {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("no setting %s", key)
	return rpcproto.Setting{}
}

func TestSettingsNeverSendTheToken(t *testing.T) {
	f := newFixture(t, "baseUrl: SERVER\napiKey: sk-very-secret-123\n")
	res, err := f.svc.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key := find(t, res.Settings, "apiKey")
	if key.Value != "" || key.Default != "" || !key.IsSet || !key.Secret || !key.UserOnly {
		t.Errorf("apiKey: %+v", key)
	}
	if base := find(t, res.Settings, "baseUrl"); base.Value != f.srv.URL() || !strings.HasPrefix(base.Source, f.global) || !base.UserOnly {
		t.Errorf("baseUrl: %+v", base)
	}
	if tt := find(t, res.Settings, "agent.toolTimeout"); tt.UserOnly || tt.Source != "default" {
		t.Errorf("agent.toolTimeout: %+v", tt)
	}
	if res.GlobalFile != f.global || res.ProjectFile != f.proj {
		t.Errorf("files: %s %s", res.GlobalFile, res.ProjectFile)
	}
	// Writing the token does not send it back either.
	set, err := f.svc.Set(context.Background(), rpcproto.SetSettingRequest{Key: "apiKey", Value: "sk-new-secret-456"})
	if err != nil {
		t.Fatal(err)
	}
	if set.Setting.Value != "" || !set.Setting.IsSet {
		t.Errorf("set apiKey answered %+v", set.Setting)
	}
	b, _ := os.ReadFile(f.global)
	if !strings.Contains(string(b), "sk-new-secret-456") {
		t.Errorf("the global file lacks the new token:\n%s", b)
	}
}

func TestSetSettingChecks(t *testing.T) {
	f := newFixture(t, "baseUrl: SERVER\n")
	ctx := context.Background()
	for _, c := range []struct {
		req  rpcproto.SetSettingRequest
		want string
	}{
		{rpcproto.SetSettingRequest{Key: "baseUrl", Value: "http://evil:11434", Project: true}, "may not be set in a project file"},
		{rpcproto.SetSettingRequest{Key: "approval.mode", Value: "never", Project: true}, "may not be set in a project file"},
		{rpcproto.SetSettingRequest{Key: "agent.maxIterations", Value: "lots"}, "agent.maxIterations"},
		{rpcproto.SetSettingRequest{Key: "agent.maxIteratons", Value: "5"}, "agent.maxIterations"}, // the suggestion
		{rpcproto.SetSettingRequest{Key: "approval.mode", Value: "sometimes"}, "approval.mode"},
	} {
		if _, err := f.svc.Set(ctx, c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.req, err, c.want)
		}
	}
	if _, err := os.Stat(f.proj); err == nil {
		t.Error("a refused write created the project file")
	}

	res, err := f.svc.Set(ctx, rpcproto.SetSettingRequest{Key: "agent.toolTimeout", Value: "2m", Project: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.File != f.proj || res.Setting.Value != "2m" || !strings.HasPrefix(res.Setting.Source, f.proj) {
		t.Errorf("set in the project: %+v", res)
	}
	// The global file is overridden by the project file: the note says so.
	res, err = f.svc.Set(ctx, rpcproto.SetSettingRequest{Key: "agent.toolTimeout", Value: "45s"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Setting.Value != "2m" || !strings.Contains(res.Note, "overrides "+f.global) {
		t.Errorf("set globally under a project value: %+v", res)
	}
	res, err = f.svc.Set(ctx, rpcproto.SetSettingRequest{Key: "agent.toolTimeout", Unset: true, Project: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Setting.Value != "45s" {
		t.Errorf("after unsetting the project value: %+v", res)
	}
	// A mapping for the sensitive-file rules, as olly config set takes it.
	res, err = f.svc.Set(ctx, rpcproto.SetSettingRequest{Key: "agent.sensitiveFilePatterns", Value: `{"**/*": auto, "**/secrets/**": ask}`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Setting.Value, "secrets") {
		t.Errorf("sensitive patterns: %+v", res.Setting)
	}
}

func TestTestConnection(t *testing.T) {
	f := newFixture(t, "baseUrl: SERVER\n", llmtest.WithVersion("0.99.1"), llmtest.WithToken("tok-abcdefgh"))
	f.srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"))
	ctx := context.Background()
	res, err := f.svc.TestConnection(ctx, rpcproto.TestConnectionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error == "" || res.BaseURL != f.srv.URL() {
		t.Errorf("without the token: %+v", res)
	}
	res, err = f.svc.TestConnection(ctx, rpcproto.TestConnectionRequest{APIKey: "tok-abcdefgh"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Version != "0.99.1" || res.Models != 1 || res.LatencyMs < 0 {
		t.Errorf("with the token: %+v", res)
	}
	res, err = f.svc.TestConnection(ctx, rpcproto.TestConnectionRequest{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Error, "127.0.0.1:1") {
		t.Errorf("nothing listening: %+v", res)
	}
}

func TestModels(t *testing.T) {
	f := newFixture(t, "baseUrl: SERVER\n")
	f.srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools", "thinking"), llmtest.ContextLength(40960))
	f.srv.AddModel("small", llmtest.Caps("completion"), llmtest.ContextLength(8192),
		llmtest.Template("{{ range .ToolCalls }}<｜tool▁call▁begin｜>{{ .Function.Name }}<｜tool▁sep｜>{{ .Function.Arguments }}<｜tool▁call▁end｜>{{ end }}"))
	ctx := context.Background()
	list, err := f.svc.ListModels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Offline != "" {
		t.Fatalf("models: %+v", list)
	}
	m := list.Models[0]
	if m.Name != "qwen3:8b" || m.ContextLength != 40960 || strings.Join(m.Capabilities, " ") != "chat tools thinking" || !m.Enabled || m.Dialect != "" {
		t.Errorf("qwen3: %+v", m)
	}
	if m := list.Models[1]; m.Dialect != "deepseek" {
		t.Errorf("small: %+v: the dialect of its template is deepseek", m)
	}
	res, err := f.svc.SetModelEnabled(ctx, rpcproto.SetModelEnabledRequest{Name: "small", Enabled: false})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.Name != "small:latest" || res.Model.Enabled {
		t.Errorf("disable small: %+v", res.Model)
	}
	res, err = f.svc.SetModelContext(ctx, rpcproto.SetModelContextRequest{Name: "qwen3:8b", Context: 16384})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.NumCtxCap != 16384 || res.Model.NumCtx != 16384 || res.Model.NumCtxFrom != "cap" {
		t.Errorf("cap qwen3: %+v", res.Model)
	}
	for _, req := range []rpcproto.SetModelContextRequest{{Name: "qwen3:8b", Context: 100}, {Name: "qwen3:8b", Context: -1}, {Name: "nope", Context: 4096}} {
		if _, err := f.svc.SetModelContext(ctx, req); err == nil {
			t.Errorf("%+v accepted", req)
		}
	}
}

// The saved token goes only to the saved server: testing another address
// without a token of its own must not hand it the saved one.
func TestTestConnectionKeepsTheTokenAtHome(t *testing.T) {
	f := newFixture(t, "baseUrl: SERVER\napiKey: tok-abcdefgh\n", llmtest.WithToken("tok-abcdefgh"))
	f.srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"))
	other := llmtest.New(t, llmtest.WithToken("tok-abcdefgh"))
	ctx := context.Background()
	res, err := f.svc.TestConnection(ctx, rpcproto.TestConnectionRequest{})
	if err != nil || !res.OK {
		t.Fatalf("the saved server with the saved token: %+v, %v", res, err)
	}
	res, err = f.svc.TestConnection(ctx, rpcproto.TestConnectionRequest{BaseURL: other.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.BaseURL != other.URL() {
		t.Errorf("another address was sent the saved token: %+v", res)
	}
	res, err = f.svc.TestConnection(ctx, rpcproto.TestConnectionRequest{BaseURL: other.URL(), APIKey: "tok-abcdefgh"})
	if err != nil || !res.OK {
		t.Errorf("another address with its own token: %+v, %v", res, err)
	}
}

// TestSetSettingSaysWhenItApplies: the running olly (Apply) is handed the
// reloaded settings after each write, and the result says whether the key
// applies from the next turn, after a restart, or not at all.
func TestSetSettingSaysWhenItApplies(t *testing.T) {
	f := newFixture(t, "baseUrl: SERVER\n")
	ctx := context.Background()
	var handed []*config.Config
	var failWith error
	var applied, restart []string // what the running olly answers
	f.svc.Live = func(key string) bool { return key == "agent.maxIterations" }
	f.svc.Apply = func(_ context.Context, cfg *config.Config) ([]string, []string, error) {
		handed = append(handed, cfg)
		return applied, restart, failWith
	}
	storage := filepath.Join(f.home, "db")
	for _, c := range []struct {
		req               rpcproto.SetSettingRequest
		applied, restart  []string
		fail              error
		applies, noteHas  string
		restartInListings bool
	}{
		{req: rpcproto.SetSettingRequest{Key: "agent.maxIterations", Value: "9"}, applied: []string{"agent.maxIterations"}, applies: rpcproto.AppliesNextTurn, noteHas: "next turn"},
		{req: rpcproto.SetSettingRequest{Key: "storagePath", Value: storage}, restart: []string{"storagePath"}, applies: rpcproto.AppliesRestart, noteHas: "restart", restartInListings: true},
		{req: rpcproto.SetSettingRequest{Key: "agent.maxIterations", Value: "11"}, fail: errors.New("no client"), applies: rpcproto.AppliesRestart, noteHas: "no client"},
		{req: rpcproto.SetSettingRequest{Key: "agent.keepAlive", Value: "5m"}, applies: rpcproto.AppliesUnchanged, noteHas: "already", restartInListings: true},
	} {
		failWith, applied, restart = c.fail, c.applied, c.restart
		before := len(handed)
		res, err := f.svc.Set(ctx, c.req)
		if err != nil {
			t.Fatalf("%+v: %v", c.req, err)
		}
		if len(handed) != before+1 || handed[len(handed)-1].Entries() == nil {
			t.Errorf("%+v: the running olly was not handed the settings", c.req)
		} else if en, _ := handed[len(handed)-1].Entry(c.req.Key); en.Text() != c.req.Value {
			t.Errorf("%+v: the running olly was handed %s = %q, not the value written", c.req, c.req.Key, en.Text())
		}
		if res.Applies != c.applies || !strings.Contains(res.Note, c.noteHas) {
			t.Errorf("%+v: applies %q, note %q; want %q and a note with %q", c.req, res.Applies, res.Note, c.applies, c.noteHas)
		}
		if res.Setting.Restart != c.restartInListings {
			t.Errorf("%+v: setting.restart = %v", c.req, res.Setting.Restart)
		}
	}
	// A value a later layer overrides changes nothing in the running olly.
	f.environ = append(f.environ, "OLLY_AGENT_MAX_ITERATIONS=3")
	res, err := f.svc.Set(ctx, rpcproto.SetSettingRequest{Key: "agent.maxIterations", Value: "12"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Applies != rpcproto.AppliesOverridden || !strings.Contains(res.Note, "OLLY_AGENT_MAX_ITERATIONS") {
		t.Errorf("overridden: %+v", res)
	}
	// Without a running olly to hand it to, every change needs a restart.
	f.svc.Apply, f.svc.Live = nil, nil
	res, err = f.svc.Set(ctx, rpcproto.SetSettingRequest{Key: "agent.keepAlive", Value: "10m"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Applies != rpcproto.AppliesRestart || !res.Setting.Restart {
		t.Errorf("no running olly: %+v", res)
	}
}
