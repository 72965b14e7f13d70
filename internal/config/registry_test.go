package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDefaults pins every key's default, range and environment variable to
// the seed's settings (and olly's additions): a change here is a change of
// behaviour for every user.
func TestDefaults(t *testing.T) {
	want := []struct {
		key, env, def, rng string
	}{
		{"baseUrl", "OLLY_BASE_URL", "http://localhost:11434", ""},
		{"provider", "OLLY_PROVIDER", "ollama", ""},
		{"apiKey", "OLLY_API_KEY", "", ""},
		{"completionMode.model", "OLLY_COMPLETION_MODE_MODEL", "", ""},
		{"completionMode.temperature", "OLLY_COMPLETION_MODE_TEMPERATURE", "0.1", "0–2"},
		{"completionMode.maxTokens", "OLLY_COMPLETION_MODE_MAX_TOKENS", "500", "50–4096"},
		{"chatMode.model", "OLLY_CHAT_MODE_MODEL", "", ""},
		{"chatMode.temperature", "OLLY_CHAT_MODE_TEMPERATURE", "0.7", "0–2"},
		{"chatMode.maxTokens", "OLLY_CHAT_MODE_MAX_TOKENS", "2048", "256–8192"},
		{"planMode.model", "OLLY_PLAN_MODE_MODEL", "", ""},
		{"planMode.temperature", "OLLY_PLAN_MODE_TEMPERATURE", "0.5", "0–2"},
		{"planMode.maxTokens", "OLLY_PLAN_MODE_MAX_TOKENS", "4096", "256–8192"},
		{"agentMode.model", "OLLY_AGENT_MODE_MODEL", "", ""},
		{"agentMode.temperature", "OLLY_AGENT_MODE_TEMPERATURE", "0.4", "0–2"},
		{"agentMode.maxTokens", "OLLY_AGENT_MODE_MAX_TOKENS", "8192", "512–32768"},
		{"agent.maxIterations", "OLLY_AGENT_MAX_ITERATIONS", "25", "1–1000"},
		{"agent.toolTimeout", "OLLY_AGENT_TOOL_TIMEOUT", "30s", "5000–300000 ms"},
		{"agent.maxActiveSessions", "OLLY_AGENT_MAX_ACTIVE_SESSIONS", "1", "1–5"},
		{"agent.enableThinking", "OLLY_AGENT_ENABLE_THINKING", "true", ""},
		{"agent.continuationStrategy", "OLLY_AGENT_CONTINUATION_STRATEGY", "full", ""},
		{"agent.maxContextWindow", "OLLY_AGENT_MAX_CONTEXT_WINDOW", "65536", "2048–1048576"},
		{"agent.keepAlive", "OLLY_AGENT_KEEP_ALIVE", "", ""},
		{"agent.sessionTitleGeneration", "OLLY_AGENT_SESSION_TITLE_GENERATION", "firstMessage", ""},
		{"agent.sessionTitleModel", "OLLY_AGENT_SESSION_TITLE_MODEL", "", ""},
		{"agent.explorerModel", "OLLY_AGENT_EXPLORER_MODEL", "", ""},
		{"agent.sensitiveFilePatterns", "OLLY_AGENT_SENSITIVE_FILE_PATTERNS", "DefaultFileRules()", ""},
		{"agent.autoCreateBranch", "OLLY_AGENT_AUTO_CREATE_BRANCH", "false", ""},
		{"agent.orchestratorTools", "OLLY_AGENT_ORCHESTRATOR_TOOLS", "[write_file, run_terminal_command, run_subagent]", "at least 1 item"},
		{"contextWindow", "OLLY_CONTEXT_WINDOW", "4096", "2048–1048576"},
		{"timeouts.connect", "OLLY_TIMEOUTS_CONNECT", "30s", "1000–600000 ms"},
		{"timeouts.response", "OLLY_TIMEOUTS_RESPONSE", "5m", "5000–3600000 ms"},
		{"timeouts.idle", "OLLY_TIMEOUTS_IDLE", "3m", "5000–3600000 ms"},
		{"enableAutoComplete", "OLLY_ENABLE_AUTO_COMPLETE", "true", ""},
		{"completion.prefixChars", "OLLY_COMPLETION_PREFIX_CHARS", "2000", "200–32000"},
		{"completion.suffixChars", "OLLY_COMPLETION_SUFFIX_CHARS", "1000", "0–16000"},
		{"completion.contextChars", "OLLY_COMPLETION_CONTEXT_CHARS", "1500", "0–16000"},
		{"completion.debounce", "OLLY_COMPLETION_DEBOUNCE", "100ms", "0–2000 ms"},
		{"completion.latencyBudget", "OLLY_COMPLETION_LATENCY_BUDGET", "3s", "200–60000 ms"},
		{"completion.keepAlive", "OLLY_COMPLETION_KEEP_ALIVE", "30m", ""},
		{"embedding.model", "OLLY_EMBEDDING_MODEL", "nomic-embed-text", ""},
		{"lsp.servers", "OLLY_LSP_SERVERS", "[]", ""},
		{"workspace.extraRoots", "OLLY_WORKSPACE_EXTRA_ROOTS", "[]", ""},
		{"storagePath", "OLLY_STORAGE_PATH", "", ""},
		{"approval.mode", "OLLY_APPROVAL_MODE", "auto", ""},
		{"sandbox.network", "OLLY_SANDBOX_NETWORK", "false", ""},
		{"sandbox.writable", "OLLY_SANDBOX_WRITABLE", "[~/.cache, ~/go/pkg/mod, ~/.npm, ~/.cargo/registry, ~/.cargo/git, ~/.m2/repository, ~/.gradle/caches, ~/.pnpm-store, ~/.yarn/berry/cache]", ""},
		{"sandbox.denyRead", "OLLY_SANDBOX_DENY_READ", "[]", ""},
		{"shell.env.keep", "OLLY_SHELL_ENV_KEEP", "[]", ""},
		{"shell.env.drop", "OLLY_SHELL_ENV_DROP", "[]", ""},
		{"mcp.servers", "OLLY_MCP_SERVERS", "{}", ""},
		{"mcp.allow", "OLLY_MCP_ALLOW", "[]", ""},
		{"mcp.autoApproveReadOnly", "OLLY_MCP_AUTO_APPROVE_READ_ONLY", "false", ""},
		{"mcp.unsandboxed", "OLLY_MCP_UNSANDBOXED", "[]", ""},
		{"mcp.callTimeout", "OLLY_MCP_CALL_TIMEOUT", "1m", "1000–600000 ms"},
		{"mcp.connectTimeout", "OLLY_MCP_CONNECT_TIMEOUT", "30s", "1000–300000 ms"},
		{"hooks.enabled", "OLLY_HOOKS_ENABLED", "true", ""},
		{"hooks.claudeCompat", "OLLY_HOOKS_CLAUDE_COMPAT", "true", ""},
		{"web.allowHosts", "OLLY_WEB_ALLOW_HOSTS", "[]", ""},
		{"web.fetchTimeout", "OLLY_WEB_FETCH_TIMEOUT", "30s", "1000–300000 ms"},
		{"web.fetchMaxChars", "OLLY_WEB_FETCH_MAX_CHARS", "60000", "1000–1000000"},
		{"web.searxngUrl", "OLLY_WEB_SEARXNG_URL", "", ""},
		{"web.ollamaApiKey", "OLLY_WEB_OLLAMA_API_KEY", "", ""},
		{"web.searchResults", "OLLY_WEB_SEARCH_RESULTS", "5", "1–20"},
	}
	got := Keys()
	if len(got) != len(want) {
		t.Fatalf("%d keys, want %d: a key was added or removed; update this table and docs/configuration.md", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Key != w.key || g.Env != w.env || g.Default != w.def || g.Range != w.rng {
			t.Errorf("key %d = {%s %s %q %q}, want {%s %s %q %q}", i, g.Key, g.Env, g.Default, g.Range, w.key, w.env, w.def, w.rng)
		}
	}
}

func TestDefaultSettingsValues(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: t.TempDir()})
	if c.Agent.ToolTimeout != 30*time.Second {
		t.Errorf("toolTimeout = %v", c.Agent.ToolTimeout)
	}
	if diff := cmp.Diff(DefaultFileRules(), c.Agent.SensitiveFilePatterns); diff != "" {
		t.Errorf("sensitiveFilePatterns (-want +got):\n%s", diff)
	}
	if !slices.Equal(c.Agent.OrchestratorTools, []string{"write_file", "run_terminal_command", "run_subagent"}) {
		t.Errorf("orchestratorTools = %v", c.Agent.OrchestratorTools)
	}
	if c.ChatMode.Temperature != 0.7 || c.AgentMode.MaxTokens != 8192 || !c.EnableAutoComplete || !c.Agent.EnableThinking {
		t.Errorf("mode defaults wrong: %+v %+v", c.ChatMode, c.AgentMode)
	}
	for _, e := range c.Entries() {
		if e.Source.Kind != FromDefault {
			t.Errorf("%s source = %v, want default", e.Key, e.Source)
		}
	}
}

// TestDefaultsAreIndependent: changing one Config's slices must not change
// the defaults or another Config.
func TestDefaultsAreIndependent(t *testing.T) {
	a := mustLoad(t, LoadOptions{Home: t.TempDir()})
	a.Agent.OrchestratorTools[0] = "changed"
	a.Agent.SensitiveFilePatterns[0].Action = FileAsk
	b := mustLoad(t, LoadOptions{Home: t.TempDir()})
	if b.Agent.OrchestratorTools[0] != "write_file" || b.Agent.SensitiveFilePatterns[0].Action != FileAuto {
		t.Fatal("configs share slices with the defaults")
	}
}

func TestEnvName(t *testing.T) {
	tests := []struct{ key, want string }{
		{"baseUrl", "OLLY_BASE_URL"},
		{"apiKey", "OLLY_API_KEY"},
		{"agent.maxIterations", "OLLY_AGENT_MAX_ITERATIONS"},
		{"chatMode.maxTokens", "OLLY_CHAT_MODE_MAX_TOKENS"},
		{"embedding.model", "OLLY_EMBEDDING_MODEL"},
		{"lsp.go2Server", "OLLY_LSP_GO2_SERVER"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := envName(tt.key); got != tt.want {
				t.Errorf("envName(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

// TestEveryKeyHasDoc guards the docs and listings: every key explains
// itself, and enum/range keys say so.
func TestEveryKeyHasDoc(t *testing.T) {
	for _, k := range Keys() {
		if len(k.Doc) < 20 || !strings.HasSuffix(k.Doc, ".") {
			t.Errorf("%s: doc %q should be a sentence", k.Key, k.Doc)
		}
	}
}

func TestValueHints(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{"provider", []string{"ollama", "openai"}},
		{"agent.continuationStrategy", []string{"full", "standard", "minimal"}},
		{"agent.enableThinking", []string{"true", "false"}},
		{"agent.maxIterations", nil},
		{"nope", nil},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := ValueHints(tt.key); !slices.Equal(got, tt.want) {
				t.Errorf("ValueHints = %v, want %v", got, tt.want)
			}
		})
	}
}
