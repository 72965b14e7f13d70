package rpcproto

import "encoding/json"

// Commands for the settings: read them, change one in the global or the
// project file (with the checks `olly config set` makes), test the
// connection to the model server, and the per-model table of `olly models`.
const (
	CmdGetSettings     = "get_settings"
	CmdSetSetting      = "set_setting"
	CmdTestConnection  = "test_connection"
	CmdListModels      = "list_models"
	CmdSetModelEnabled = "set_model_enabled"
	CmdSetModelContext = "set_model_context"
)

// SettingsResult is every setting with its effective value and where it
// came from.
type SettingsResult struct {
	Settings []Setting `json:"settings"`
	// GlobalFile and ProjectFile are the files set_setting writes.
	GlobalFile  string `json:"globalFile"`
	ProjectFile string `json:"projectFile,omitempty"`
	// Warnings are the settings' problems that did not stop loading.
	Warnings []string `json:"warnings,omitempty"`
}

// Setting is one key. A secret's value is never sent: Value is empty and
// IsSet says whether one is set.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value" doc:"the effective value as set_setting takes it; empty for a secret"`
	// JSON is the value as data (durations in milliseconds, rules as a
	// list of {pattern, action}); absent for a secret.
	JSON json.RawMessage `json:"json,omitempty"`
	// Source is where the value came from: default, a file's path, an
	// OLLY_* variable, a flag.
	Source  string   `json:"source"`
	Type    string   `json:"type"`
	Default string   `json:"default"`
	Range   string   `json:"range,omitempty"`
	Enum    []string `json:"enum,omitempty"`
	Doc     string   `json:"doc"`
	Secret  bool     `json:"secret,omitempty"`
	IsSet   bool     `json:"isSet,omitempty" doc:"a secret has a value (never sent)"`
	// UserOnly keys may not be set in a project file (a cloned repository
	// must not point olly at another server or loosen its approvals).
	UserOnly bool `json:"userOnly,omitempty"`
	// Restart is set for a key the running olly reads only when it
	// starts: a change applies after a restart. The others apply from
	// the next turn.
	Restart bool `json:"restart,omitempty" doc:"a change applies only after the running olly restarts"`
}

// SetSettingRequest writes (or removes) one key in a settings file.
type SetSettingRequest struct {
	Key     string `json:"key" rpc:"required" doc:"the setting (get_settings lists them)"`
	Value   string `json:"value,omitempty" doc:"the value as olly config set takes it (durations 45s, lists a,b, rules as a YAML mapping)"`
	Unset   bool   `json:"unset,omitempty" doc:"remove the key from the file instead, so the next layer down applies"`
	Project bool   `json:"project,omitempty" doc:"write the workspace's .olly/config.yaml instead of the global file; refused for user-only keys"`
}

// SetSettingResult says what was written and what olly now uses.
type SetSettingResult struct {
	Key  string `json:"key"`
	File string `json:"file"`
	// Setting is the key's effective value after the write: Source is not
	// the file when a later layer (environment, flag, project) overrides it.
	Setting Setting `json:"setting"`
	// Applies says when the running olly uses the new value: "nextTurn"
	// (the next turn; one in progress finishes with the old value),
	// "restart" (olly reads the key when it starts), "overridden" (a
	// later layer wins, so nothing changes) or "unchanged".
	Applies string `json:"applies,omitempty" doc:"nextTurn, restart, overridden or unchanged"`
	// Note says in words when and how the write takes effect.
	Note string `json:"note,omitempty"`
}

// When a written setting takes effect (SetSettingResult.Applies).
const (
	AppliesNextTurn   = "nextTurn"
	AppliesRestart    = "restart"
	AppliesOverridden = "overridden"
	AppliesUnchanged  = "unchanged"
)

// TestConnectionRequest tests the connection the settings describe, or
// the one given (the form not yet saved); a field left empty is the
// setting's.
type TestConnectionRequest struct {
	BaseURL  string `json:"baseUrl,omitempty"`
	Provider string `json:"provider,omitempty"`
	APIKey   string `json:"apiKey,omitempty" doc:"a token to try; never echoed back"`
}

// TestConnectionResult reports the server's answer.
type TestConnectionResult struct {
	OK        bool   `json:"ok"`
	BaseURL   string `json:"baseUrl"`
	Provider  string `json:"provider"`
	Version   string `json:"version,omitempty" doc:"the server's version"`
	LatencyMs int64  `json:"latencyMs" doc:"how long the version request took"`
	Models    int    `json:"models" doc:"how many models the server lists (-1: the list failed)"`
	Error     string `json:"error,omitempty" doc:"what failed, and what to check"`
}

// ListModelsResult is the server's models with olly's per-model settings.
type ListModelsResult struct {
	Models []ModelInfo `json:"models"`
	// Offline says the server could not be reached: the list is the cache.
	Offline string `json:"offline,omitempty"`
}

// ModelInfo is one model as `olly models --json` shows it.
type ModelInfo struct {
	Name              string   `json:"name"`
	Size              int64    `json:"size"`
	Family            string   `json:"family,omitempty"`
	ParameterSize     string   `json:"parameterSize,omitempty"`
	QuantizationLevel string   `json:"quantizationLevel,omitempty"`
	ContextLength     int      `json:"contextLength" doc:"the model's trained context (0: not reported)"`
	Capabilities      []string `json:"capabilities" doc:"chat, tools, thinking, vision, fim, embedding"`
	// CapabilitiesKnown is false when the server does not report them
	// (they are then guesses).
	CapabilitiesKnown bool `json:"capabilitiesKnown"`
	Running           bool `json:"running,omitempty"`
	Enabled           bool `json:"enabled"`
	NumCtxCap         int  `json:"numCtxCap,omitempty" doc:"the person's cap on the context window (0: none)"`
	// NumCtx is the window olly requests; NumCtxFrom what decided it:
	// model, cap or agent.maxContextWindow.
	NumCtx     int    `json:"numCtx"`
	NumCtxFrom string `json:"numCtxFrom"`
	Cached     bool   `json:"cached,omitempty"`
	Error      string `json:"error,omitempty"`
	// Dialect is the tool-call markup read from the model's template.
	Dialect string `json:"dialect,omitempty" doc:"the tool-call dialect of the model's template: xml, function, bracket, bracket_args, deepseek, kimi, glm, invoke, tool_code or bare (absent: none recognised); without native tools olly asks for calls in it"`
}

// SetModelEnabledRequest enables or disables a model.
type SetModelEnabledRequest struct {
	Name    string `json:"name" rpc:"required" doc:"the model (list_models lists them; \":latest\" may be left out)"`
	Enabled bool   `json:"enabled" doc:"false: never picked automatically nor offered in pickers"`
}

// SetModelContextRequest caps the context window olly requests for a model.
type SetModelContextRequest struct {
	Name    string `json:"name" rpc:"required" doc:"the model"`
	Context int    `json:"context" doc:"the cap in tokens, 512 to 1048576; 0 removes it"`
}

// ModelResult is a model after a change.
type ModelResult struct {
	Model ModelInfo `json:"model"`
}
