package hooks

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// claudeNames maps olly's tool names to the names Claude Code's hooks see,
// so a matcher such as "Bash" or "Write|Edit" written for Claude Code
// matches olly's calls. Tools Claude Code does not have keep olly's name
// (MCP tools are mcp__server__tool in both).
var claudeNames = map[string]string{
	"run_terminal_command": "Bash",
	"read_file":            "Read",
	"write_file":           "Write",
	"list_files":           "LS",
	"find_files":           "Glob",
	"search_workspace":     "Grep",
	"web_fetch":            "WebFetch",
	"web_search":           "WebSearch",
	"todo_write":           "TodoWrite",
	"run_subagent":         "Task",
}

// ClaudeName is the name a hook sees for olly's tool name.
func ClaudeName(olly string) string {
	if c, ok := claudeNames[olly]; ok {
		return c
	}
	return olly
}

// ToolNames returns the mapping (olly name → name hooks see), for docs and
// `olly hooks list`.
func ToolNames() map[string]string {
	out := make(map[string]string, len(claudeNames))
	for k, v := range claudeNames {
		out[k] = v
	}
	return out
}

// argAliases maps an olly argument to the field Claude Code's tool input
// has for it, per tool; path arguments become absolute file_path.
var argAliases = map[string]map[string]string{
	"read_file":        {"path": "file_path", "startLine": "offset"},
	"write_file":       {"path": "file_path"},
	"list_files":       {"path": "path"},
	"find_files":       {"path": "path"},
	"search_workspace": {"query": "pattern", "directory": "path", "include": "glob"},
}

// toolInput is the call's arguments as hooks see them: olly's own fields
// plus, for the tools Claude Code has, its field names (file_path
// absolute, a command's timeout in milliseconds), so `jq .tool_input.command`
// and `.tool_input.file_path` work as they do under Claude Code.
func toolInput(tool string, args json.RawMessage, workspace string) map[string]any {
	in := map[string]any{}
	_ = json.Unmarshal(args, &in) // arguments that are not an object: an empty input
	if in == nil {
		in = map[string]any{}
	}
	for from, to := range argAliases[tool] {
		v, ok := in[from]
		if !ok {
			continue
		}
		if s, isStr := v.(string); isStr && (to == "file_path" || to == "path") {
			v = absIn(workspace, s)
		}
		in[to] = v
	}
	if tool == "run_terminal_command" {
		if n, ok := in["timeout"].(float64); ok {
			in["timeout"] = n * 1000 // Claude Code's Bash timeout is in milliseconds
		}
	}
	return in
}

// absIn makes a workspace-relative path absolute.
func absIn(workspace, p string) string {
	if p == "" || filepath.IsAbs(p) || workspace == "" || strings.Contains(p, "://") {
		return p
	}
	return filepath.Join(workspace, filepath.FromSlash(p))
}
