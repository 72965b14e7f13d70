package rpc

import (
	"context"

	"github.com/olly-agent/olly/rpcproto"
)

// Settings is the settings layer as the protocol uses it
// (*settingsvc.Service).
type Settings interface {
	Settings(ctx context.Context) (*rpcproto.SettingsResult, error)
	Set(ctx context.Context, req rpcproto.SetSettingRequest) (*rpcproto.SetSettingResult, error)
	TestConnection(ctx context.Context, req rpcproto.TestConnectionRequest) (*rpcproto.TestConnectionResult, error)
	ListModels(ctx context.Context) (*rpcproto.ListModelsResult, error)
	SetModelEnabled(ctx context.Context, req rpcproto.SetModelEnabledRequest) (*rpcproto.ModelResult, error)
	SetModelContext(ctx context.Context, req rpcproto.SetModelContextRequest) (*rpcproto.ModelResult, error)
}

func settingsCommands() []*command {
	return []*command{
		def(rpcproto.CmdGetSettings, "Every setting with its effective value, where it comes from, its type and documentation (docs/configuration.md). A secret (apiKey) is never sent: only whether it is set.", false, runGetSettings),
		def(rpcproto.CmdSetSetting, "Write one setting into the global file (or the project's .olly/config.yaml), checked as `olly config set` checks it: the value's type and range, and user-only keys (baseUrl, apiKey, approval.mode, …) refused in a project file. The running olly applies the connection (baseUrl, provider, apiKey, timeouts.*) and the agent's settings from its next turn, a turn in progress finishing with the old ones; `applies` says when the key takes effect, and keys marked `restart` in get_settings need a restart of the running olly.", false, runSetSetting),
		def(rpcproto.CmdTestConnection, "Ask the model server the settings name (or the fields given, not yet saved) for its version and models: reports the version, the latency and what failed.", true, runTestConnection),
		def(rpcproto.CmdListModels, "The server's models (the cache when it cannot be reached) with capabilities, context length, the window olly requests, the tool-call dialect read from its template (`dialect`: xml, function, bracket, bracket_args, deepseek, kimi, glm, invoke, tool_code or bare; absent when none is recognised) and the person's per-model settings, as `olly models --json`.", true, runListModels),
		def(rpcproto.CmdSetModelEnabled, "Enable or disable a model: a disabled one is never picked automatically nor offered in pickers (as `olly models enable|disable`).", true, runSetModelEnabled),
		def(rpcproto.CmdSetModelContext, "Cap the context window olly requests for a model, taking precedence over agent.maxContextWindow; 0 removes the cap (as `olly models set --context`).", true, runSetModelContext),
	}
}

func (s *Server) settings(name string) (Settings, error) {
	if s.opts.Settings == nil {
		return nil, errUnavailable(name, "no settings service")
	}
	return s.opts.Settings, nil
}

func runGetSettings(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (*rpcproto.SettingsResult, error) {
	st, err := s.settings(rpcproto.CmdGetSettings)
	if err != nil {
		return nil, err
	}
	return st.Settings(ctx)
}

func runSetSetting(ctx context.Context, s *Server, _ *call, req rpcproto.SetSettingRequest) (*rpcproto.SetSettingResult, error) {
	st, err := s.settings(rpcproto.CmdSetSetting)
	if err != nil {
		return nil, err
	}
	return st.Set(ctx, req)
}

func runTestConnection(ctx context.Context, s *Server, _ *call, req rpcproto.TestConnectionRequest) (*rpcproto.TestConnectionResult, error) {
	st, err := s.settings(rpcproto.CmdTestConnection)
	if err != nil {
		return nil, err
	}
	return st.TestConnection(ctx, req)
}

func runListModels(ctx context.Context, s *Server, _ *call, _ rpcproto.Empty) (*rpcproto.ListModelsResult, error) {
	st, err := s.settings(rpcproto.CmdListModels)
	if err != nil {
		return nil, err
	}
	return st.ListModels(ctx)
}

func runSetModelEnabled(ctx context.Context, s *Server, _ *call, req rpcproto.SetModelEnabledRequest) (*rpcproto.ModelResult, error) {
	st, err := s.settings(rpcproto.CmdSetModelEnabled)
	if err != nil {
		return nil, err
	}
	return st.SetModelEnabled(ctx, req)
}

func runSetModelContext(ctx context.Context, s *Server, _ *call, req rpcproto.SetModelContextRequest) (*rpcproto.ModelResult, error) {
	st, err := s.settings(rpcproto.CmdSetModelContext)
	if err != nil {
		return nil, err
	}
	return st.SetModelContext(ctx, req)
}
