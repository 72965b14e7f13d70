// Package settingsvc is the settings as a protocol client sees them: the
// get_settings, set_setting, test_connection, list_models,
// set_model_enabled and set_model_context commands of RPC mode (and so of
// the web page's settings). It reads and writes through internal/config,
// with the checks `olly config set` makes (the value's type and range,
// user-only keys refused in a project file), and the per-model table
// through the store, as `olly models` does. Secrets are never sent back.
package settingsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/rpcproto"
)

// Service answers the settings commands.
type Service struct {
	// Load reads the settings afresh (every layer: files, environment,
	// flags), so a write is seen at once.
	Load func() (*config.Config, error)
	// NewProvider builds a model-server client for settings (without
	// retries: a test wants a quick answer).
	NewProvider func(cfg *config.Config) (llm.Provider, error)
	// Models is the model cache and the person's per-model settings
	// (*store.Store).
	Models ModelStore
	// Apply hands the settings just written to the running olly
	// (app.App.Reconfigure) and reports which changed keys it applies
	// from the next turn and which it reads only when it starts; nil:
	// every change applies after a restart.
	Apply func(ctx context.Context, cfg *config.Config) (applied, restart []string, err error)
	// Live reports whether the running olly applies a change of key from
	// its next turn (app.LiveSetting); nil: no key is.
	Live func(key string) bool
}

// connectTimeout bounds test_connection.
const connectTimeout = 10 * time.Second

// Settings lists every key with its effective value; secrets are masked.
func (s *Service) Settings(_ context.Context) (*rpcproto.SettingsResult, error) {
	cfg, err := s.Load()
	if err != nil {
		return nil, fmt.Errorf("the settings do not load: %w", err)
	}
	p := cfg.Paths()
	out := &rpcproto.SettingsResult{GlobalFile: p.GlobalFile, ProjectFile: p.ProjectFile, Warnings: cfg.Warnings()}
	for _, en := range cfg.Entries() {
		out.Settings = append(out.Settings, s.wireSetting(en))
	}
	return out, nil
}

// wireSetting is wireSetting with whether a change needs a restart.
func (s *Service) wireSetting(en config.Entry) rpcproto.Setting {
	st := wireSetting(en)
	st.Restart = s.Live == nil || !s.Live(en.Key)
	return st
}

// wireSetting is one entry with a secret's value left out.
func wireSetting(en config.Entry) rpcproto.Setting {
	st := rpcproto.Setting{Key: en.Key, Value: en.Text(), Source: en.Source.String(), Type: en.Type,
		Default: en.Default, Range: en.Range, Enum: en.Enum, Doc: en.Doc, Secret: en.Secret,
		UserOnly: config.CheckProjectKey(en.Key) != nil}
	if en.Secret {
		st.IsSet = en.Text() != ""
		st.Value, st.Default = "", ""
		return st
	}
	if b, err := json.Marshal(en.JSON()); err == nil {
		st.JSON = b
	}
	return st
}

// Set writes one key into the global or the project file, checked as
// loading checks it, and reports what olly now uses.
func (s *Service) Set(ctx context.Context, req rpcproto.SetSettingRequest) (*rpcproto.SetSettingResult, error) {
	key := strings.TrimSpace(req.Key)
	if err := config.CheckKey(key); err != nil && !req.Unset {
		return nil, err
	}
	if req.Project && !req.Unset {
		if err := config.CheckProjectKey(key); err != nil {
			return nil, err
		}
	}
	cfg, err := s.Load()
	if err != nil {
		return nil, fmt.Errorf("the settings do not load (fix the file first, or unset the key it names): %w", err)
	}
	file := cfg.Paths().GlobalFile
	if req.Project {
		if file = cfg.Paths().ProjectFile; file == "" {
			return nil, errors.New("field project: this olly has no workspace, so no project file")
		}
	}
	if req.Unset {
		if _, err := config.UnsetInFile(file, key); err != nil {
			return nil, err
		}
	} else if err := config.SetInFile(file, key, req.Value); err != nil {
		return nil, err
	}
	res := &rpcproto.SetSettingResult{Key: key, File: file}
	after, err := s.Load()
	if err != nil {
		res.Note = "written, but the settings still have problems: " + err.Error()
		return res, nil
	}
	en, ok := after.Entry(key)
	if !ok {
		return res, nil
	}
	res.Setting = s.wireSetting(en)
	if src := en.Source; src.Kind != config.FromDefault && (src.Kind != config.FromFile || src.Name != file) {
		res.Applies, res.Note = rpcproto.AppliesOverridden, fmt.Sprintf("%s comes from %s, which overrides %s", key, src, file)
		return res, nil
	}
	res.Applies, res.Note = s.apply(ctx, key, after)
	return res, nil
}

// restartNote is what a change the running olly reads only at its start
// says.
const restartNote = "olly reads %s when it starts: restart it (olly serve, olly --mode rpc) for the running one to use the new value"

// apply hands the reloaded settings to the running olly and says when key
// takes effect there.
func (s *Service) apply(ctx context.Context, key string, after *config.Config) (applies, note string) {
	if s.Apply == nil {
		return rpcproto.AppliesRestart, fmt.Sprintf(restartNote, key)
	}
	applied, restart, err := s.Apply(ctx, after)
	switch {
	case err != nil:
		return rpcproto.AppliesRestart, fmt.Sprintf("written, but the running olly could not use it and keeps the previous settings until it restarts: %v", err)
	case slices.Contains(applied, key):
		note = "applies from the next turn; a turn in progress finishes with the previous value"
		if key == "agentMode.model" {
			note += "; a session that has a model of its own keeps it (set_model changes it)"
		}
		return rpcproto.AppliesNextTurn, note
	case slices.Contains(restart, key):
		return rpcproto.AppliesRestart, fmt.Sprintf(restartNote, key)
	}
	return rpcproto.AppliesUnchanged, "the running olly already uses this value"
}

// TestConnection asks the model server the settings (or the request's
// overrides) name for its version and its models, timing the first.
func (s *Service) TestConnection(ctx context.Context, req rpcproto.TestConnectionRequest) (*rpcproto.TestConnectionResult, error) {
	cfg, err := s.Load()
	if err != nil {
		return nil, fmt.Errorf("the settings do not load: %w", err)
	}
	over := map[string]any{}
	for k, v := range map[string]string{"baseUrl": req.BaseURL, "provider": req.Provider, "apiKey": req.APIKey} {
		if strings.TrimSpace(v) != "" {
			over[k] = strings.TrimSpace(v)
		}
	}
	// The saved token goes only to the saved server: a test of another
	// address without a token of its own is made without one.
	if b, ok := over["baseUrl"]; ok && b != cfg.BaseURL && over["apiKey"] == nil {
		over["apiKey"] = ""
	}
	if len(over) > 0 {
		if cfg, err = cfg.WithOverrides(over); err != nil {
			return nil, err
		}
	}
	res := &rpcproto.TestConnectionResult{BaseURL: cfg.BaseURL, Provider: cfg.Provider, Models: -1}
	p, err := s.NewProvider(cfg)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	start := time.Now()
	v, err := p.Version(ctx)
	res.LatencyMs = time.Since(start).Milliseconds()
	if err != nil {
		res.Error = fmt.Sprintf("%v (is the server running at %s? is the provider right?)", err, cfg.BaseURL)
		return res, nil
	}
	res.Version = v
	list, err := p.ListModels(ctx)
	if err != nil {
		res.Error = fmt.Sprintf("the server answered, but listing its models failed: %v (a token may be needed)", err)
		return res, nil
	}
	res.OK, res.Models = true, len(list)
	return res, nil
}
