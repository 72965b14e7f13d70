package rpc

import (
	"time"

	"github.com/olly-agent/olly/rpcproto"
)

// manageExamples are the exchanges of the session-management commands
// (cmd_manage.go) for docs/rpc.md.
func manageExamples(at time.Time) map[string]example {
	return map[string]example{
		"delete_sessions": {`"req_40"`, rpcproto.DeleteSessionsRequest{IDs: []string{"01JD4XY2", "01JD5ZQ8"}}, rpcproto.DeleteSessionsResult{Deleted: []string{"01JD4XY2"},
			Refused: []rpcproto.SessionRefusal{{SessionID: "01JD5ZQ8", Error: "it is the current session: switch to another one (switch_session, new_session) first"}}}},
		"complete_files":     {`"req_41"`, rpcproto.CompleteFilesRequest{Query: "pars"}, rpcproto.CompleteFilesResult{Files: []string{"parse.go", "parse_test.go", "internal/parser/lex.go"}}},
		"get_prompt_history": {`"req_42"`, rpcproto.PromptHistoryRequest{Limit: 2}, rpcproto.PromptHistoryResult{Prompts: []rpcproto.HistoryPrompt{{Text: "add a test for Parse in @parse.go", Workspace: "/home/me/proj", At: at}, {Text: "what is here?", Workspace: "/home/me/proj", At: at.Add(-time.Hour)}}}},
	}
}

// settingsExamples are the exchanges of the settings commands
// (cmd_settings.go) for docs/rpc.md.
func settingsExamples() map[string]example {
	model := rpcproto.ModelInfo{Name: "qwen3:8b", Size: 5225388164, Family: "qwen3", ParameterSize: "8.2B", QuantizationLevel: "Q4_K_M", ContextLength: 40960,
		Capabilities: []string{"chat", "tools", "thinking"}, CapabilitiesKnown: true, Enabled: true, NumCtx: 40960, NumCtxFrom: "model"}
	capped := model
	capped.NumCtxCap, capped.NumCtx, capped.NumCtxFrom = 16384, 16384, "cap"
	disabled := model
	disabled.Enabled = false
	return map[string]example{
		"get_settings": {`"req_50"`, rpcproto.Empty{}, &rpcproto.SettingsResult{GlobalFile: "/home/me/.config/olly/config.yaml", ProjectFile: "/home/me/proj/.olly/config.yaml",
			Settings: []rpcproto.Setting{
				{Key: "baseUrl", Value: "http://localhost:11434", Source: "default", Type: "string (url)", Default: "http://localhost:11434", Doc: "The model server's address.", UserOnly: true},
				{Key: "apiKey", Source: "/home/me/.config/olly/config.yaml:3", Type: "string", Doc: "Token sent to the server.", Secret: true, IsSet: true, UserOnly: true},
				{Key: "storagePath", Source: "default", Type: "string (absPath)", Doc: "Directory for olly's database.", UserOnly: true, Restart: true},
			}}},
		"set_setting": {`"req_51"`, rpcproto.SetSettingRequest{Key: "agent.toolTimeout", Value: "2m", Project: true}, &rpcproto.SetSettingResult{Key: "agent.toolTimeout", File: "/home/me/proj/.olly/config.yaml",
			Setting: rpcproto.Setting{Key: "agent.toolTimeout", Value: "2m", Source: "/home/me/proj/.olly/config.yaml:1", Type: "duration", Default: "30s", Range: "1000–3600000 ms", Doc: "How long a tool may run."},
			Applies: rpcproto.AppliesNextTurn, Note: "applies from the next turn; a turn in progress finishes with the previous value"}},
		"test_connection":   {`"req_52"`, rpcproto.TestConnectionRequest{BaseURL: "http://gpu-box:11434"}, &rpcproto.TestConnectionResult{OK: true, BaseURL: "http://gpu-box:11434", Provider: "ollama", Version: "0.12.6", LatencyMs: 4, Models: 7}},
		"list_models":       {`"req_53"`, rpcproto.Empty{}, &rpcproto.ListModelsResult{Models: []rpcproto.ModelInfo{model}}},
		"set_model_enabled": {`"req_54"`, rpcproto.SetModelEnabledRequest{Name: "qwen3:8b", Enabled: false}, &rpcproto.ModelResult{Model: disabled}},
		"set_model_context": {`"req_55"`, rpcproto.SetModelContextRequest{Name: "qwen3:8b", Context: 16384}, &rpcproto.ModelResult{Model: capped}},
	}
}

// trustExamples are the exchanges of the trust commands (cmd_trust.go)
// for docs/rpc.md.
func trustExamples() map[string]example {
	db := rpcproto.TrustRequest{ID: "mcp:db@5c1d0e2a9b7f3e41", Kind: "mcp", Name: "db", Source: ".mcp.json", Workspace: "/home/me/proj",
		Fingerprint: "5c1d0e2a9b7f3e4100c2d7a5e19b8f6d3a4c2e1f0b9d8c7a6e5f4d3c2b1a0f9e",
		Runs:        []rpcproto.TrustRun{{Command: "node", Args: []string{"tools/db-mcp.js"}, Line: "node tools/db-mcp.js", Env: []string{"DB=dev"}, Transport: "stdio"}},
		Files:       []string{"tools/db-mcp.js"}}
	hook := rpcproto.TrustRequest{ID: "hook:.olly/settings.json@9a8b7c6d5e4f3a2b", Kind: "hook", Name: ".olly/settings.json", Source: ".olly/settings.json",
		Workspace: "/home/me/proj", Fingerprint: "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
		Runs:  []rpcproto.TrustRun{{Event: "PreToolUse", Matcher: "Bash", Command: "./.olly/hooks/no-rm.sh", Timeout: "10s"}},
		Files: []string{".olly/hooks/no-rm.sh"}}
	return map[string]example{
		"get_trust_requests": {`"req_60"`, rpcproto.Empty{}, rpcproto.TrustRequestsResult{Requests: []rpcproto.TrustRequest{db, hook}}},
		"set_trust":          {`"req_61"`, rpcproto.SetTrustRequest{RequestID: db.ID, Decision: rpcproto.TrustDecisionTrust}, rpcproto.TrustRequestsResult{Requests: []rpcproto.TrustRequest{hook}}},
	}
}
