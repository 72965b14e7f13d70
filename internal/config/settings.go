package config

import "time"

// Settings are olly's effective settings. Each field is one key; its tags
// declare the key's name, default, range and documentation (see the package
// documentation for the tags). Consumers read the fields; only this package
// writes them.
type Settings struct {
	BaseURL  string `key:"baseUrl" userOnly:"true" default:"http://localhost:11434" check:"url" doc:"Address of the model server: Ollama, OpenWebUI's Ollama endpoint, or an OpenAI-compatible server (llama.cpp, vLLM, LM Studio)."`
	Provider string `key:"provider" userOnly:"true" default:"ollama" enum:"ollama|openai" doc:"Wire dialect the server speaks: ollama (/api/chat) or openai (/v1/chat/completions)."`
	APIKey   string `key:"apiKey" userOnly:"true" secret:"true" doc:"Bearer token for OpenWebUI, or the API key of an OpenAI-compatible server. Masked in listings; Not accepted from a project file."`

	CompletionMode ModeSettings `key:"completionMode" model.doc:"Model for inline (fill-in-the-middle) completions." temperature.default:"0.1" maxTokens.default:"500" maxTokens.min:"50" maxTokens.max:"4096"`
	ChatMode       ModeSettings `key:"chatMode" renamedFrom:"askMode|editMode" model.doc:"Model for chat: questions and answers, with read-only tools. Empty: the session's model; a prompt that names a model uses that one." temperature.default:"0.7" maxTokens.default:"2048" maxTokens.min:"256" maxTokens.max:"8192"`
	PlanMode       ModeSettings `key:"planMode" model.doc:"Model for planning: read-only exploration that ends in a plan. Empty: the session's model; a prompt that names a model uses that one." temperature.default:"0.5" maxTokens.default:"4096" maxTokens.min:"256" maxTokens.max:"8192"`
	AgentMode      ModeSettings `key:"agentMode" model.doc:"Model for agent tasks (the orchestrator, which edits files and runs commands)." temperature.default:"0.4" maxTokens.default:"8192" maxTokens.min:"512" maxTokens.max:"32768"`

	Agent AgentSettings `key:"agent"`

	ContextWindow      int                `key:"contextWindow" default:"4096" min:"2048" max:"1048576" doc:"Context window (tokens) assumed when the server does not report a model's context length (an OpenAI-compatible server other than Ollama, vLLM or llama.cpp). The default is Ollama's own default window: set the window the server really runs the model with."`
	Timeouts           TimeoutSettings    `key:"timeouts"`
	EnableAutoComplete bool               `key:"enableAutoComplete" default:"true" doc:"Offer inline completions as you type (olly lsp). Off: only a completion you ask for."`
	Completion         CompletionSettings `key:"completion"`
	Embedding          EmbeddingSettings  `key:"embedding"`
	LSP                LSPSettings        `key:"lsp"`
	Workspace          WorkspaceSettings  `key:"workspace"`
	StoragePath        string             `key:"storagePath" userOnly:"true" check:"absPath" doc:"Absolute directory for olly's database and artifacts, instead of the data directory. Empty: $XDG_DATA_HOME/olly (~/.local/share/olly)."`
	Approval           ApprovalSettings   `key:"approval"`
	Sandbox            SandboxSettings    `key:"sandbox"`
	Shell              ShellSettings      `key:"shell"`
	MCP                MCPSettings        `key:"mcp"`
	Hooks              HooksSettings      `key:"hooks"`
	Web                WebSettings        `key:"web"`
}

// MCPSettings configure the MCP servers olly connects to (docs/extensibility.md).
type MCPSettings struct {
	Servers             []MCPServer   `key:"servers" userOnly:"true" doc:"MCP servers of every workspace: NAME: {command, args, env} (stdio) or NAME: {url, type: http|sse, headers}. Project servers come from .mcp.json and need olly mcp trust. User-only: it starts programs."`
	Allow               []string      `key:"allow" userOnly:"true" default:"[]" doc:"MCP tools that run without asking: a server name (all its tools) or SERVER/TOOL. Everything else asks. User-only."`
	AutoApproveReadOnly bool          `key:"autoApproveReadOnly" userOnly:"true" default:"false" doc:"Run MCP tools that their server annotates as read-only (readOnlyHint) without asking. The annotation is the server's claim. User-only."`
	Unsandboxed         []string      `key:"unsandboxed" userOnly:"true" default:"[]" doc:"stdio MCP servers of the user's settings (by name) started outside the sandbox; project servers stay confined. Others run confined like an auto-approved command, with network. User-only."`
	CallTimeout         time.Duration `key:"callTimeout" default:"60000" min:"1000" max:"600000" doc:"How long one MCP tool call, prompt or resource read may take. Milliseconds, or a duration such as 2m."`
	ConnectTimeout      time.Duration `key:"connectTimeout" default:"30000" min:"1000" max:"300000" doc:"How long starting and initialising an MCP server may take. Milliseconds, or a duration such as 30s."`
}

// ApprovalSettings decide which actions ask the person.
type ApprovalSettings struct {
	Mode string `key:"mode" userOnly:"true" default:"auto" enum:"auto|ask" doc:"ask: every command not judged read-only asks. auto: commands up to medium severity run in the workspace-write sandbox without asking; high asks; critical always asks. Where no sandbox works, olly asks as in ask mode. User-only."`
}

// SandboxSettings shape the kernel sandbox commands run in (docs/safety.md).
type SandboxSettings struct {
	Network  bool     `key:"network" userOnly:"true" default:"false" doc:"Let commands in the workspace-write sandbox open TCP connections (npm install, go mod download, curl). Off: connects and binds are refused, and the tool result says so. User-only."`
	Writable []string `key:"writable" userOnly:"true" default:"[~/.cache, ~/go/pkg/mod, ~/.npm, ~/.cargo/registry, ~/.cargo/git, ~/.m2/repository, ~/.gradle/caches, ~/.pnpm-store, ~/.yarn/berry/cache]" doc:"Build caches the workspace-write sandbox lets commands write besides the workspace, its temporary folder and the session's scratch folder (~ is the home folder; GOCACHE, GOMODCACHE and friends from the environment are added). User-only."`
	DenyRead []string `key:"denyRead" userOnly:"true" default:"[]" doc:"More paths no sandboxed command may read, besides olly's own folders, ~/.ssh, ~/.gnupg and the usual credential files (~ is the home folder). User-only."`
}

// ShellSettings shape the terminal commands olly runs.
type ShellSettings struct {
	Env ShellEnvSettings `key:"env"`
}

// ShellEnvSettings adjust the environment commands get.
type ShellEnvSettings struct {
	Keep []string `key:"keep" userOnly:"true" default:"[]" doc:"Variables (or globs such as AWS_PROFILE) commands keep even though their names look secret: OLLY_* and names containing KEY, SECRET, TOKEN, PASSWORD or CREDENTIAL are dropped otherwise. User-only."`
	Drop []string `key:"drop" userOnly:"true" default:"[]" doc:"More variables (or globs) never passed to commands. Wins over shell.env.keep. User-only."`
}

// ModeSettings are the model and sampling settings of one mode (completion,
// chat, plan, agent). The groups in Settings give each its own defaults and
// ranges.
type ModeSettings struct {
	Model       string  `key:"model" doc:"Model name as the server lists it."`
	Temperature float64 `key:"temperature" min:"0" max:"2" doc:"Sampling temperature: lower is more deterministic."`
	MaxTokens   int     `key:"maxTokens" doc:"Most tokens the model may generate in one reply (num_predict / max_tokens)."`
}

// AgentSettings control the agent loop, its tools and its sessions.
type AgentSettings struct {
	MaxIterations          int           `key:"maxIterations" default:"25" min:"1" max:"1000" doc:"Most tool rounds (stream, run tools, continue) in one agent run."`
	ToolTimeout            time.Duration `key:"toolTimeout" default:"30000" min:"5000" max:"300000" doc:"How long one tool (a terminal command) may run before its process group is killed. Milliseconds, or a duration such as 45s or 2m."`
	MaxActiveSessions      int           `key:"maxActiveSessions" default:"1" min:"1" max:"5" doc:"Most sessions that may run an agent at the same time, counted across every olly process sharing the database; a prompt past it is refused with a message naming the running sessions."`
	EnableThinking         bool          `key:"enableThinking" default:"true" doc:"Ask models that can think to do so, and show their thinking."`
	ContinuationStrategy   string        `key:"continuationStrategy" default:"full" enum:"full|standard|minimal" doc:"How much the <agent_control> continuation packet carries: full (iteration budget, files, memory), standard (budget and a brief), minimal (a bare continue)."`
	MaxContextWindow       int           `key:"maxContextWindow" default:"65536" min:"2048" max:"1048576" doc:"Cap on the context window (num_ctx) sent to the server, to bound KV-cache memory. Per-model caps take precedence."`
	KeepAlive              string        `key:"keepAlive" check:"keepAlive" doc:"How long Ollama keeps the model loaded after a request: a duration (5m, 30m), seconds, -1 for ever, 0 to unload at once. Empty: the server's default."`
	SessionTitleGeneration string        `key:"sessionTitleGeneration" default:"firstMessage" enum:"firstMessage|currentModel|selectModel" doc:"How sessions get titles: firstMessage (from the first prompt, no model call), currentModel (the session's model writes one), selectModel (agent.sessionTitleModel writes one)."`
	SessionTitleModel      string        `key:"sessionTitleModel" doc:"Model that writes titles when agent.sessionTitleGeneration is selectModel."`
	ExplorerModel          string        `key:"explorerModel" doc:"Model for sub-agents (read-only explorers). Empty: the orchestrator's model. A session can override it."`
	SensitiveFilePatterns  []FileRule    `key:"sensitiveFilePatterns" userOnly:"true" default:"DefaultFileRules()" doc:"Which file edits need approval: globs with ask or auto, last match wins. Also accepts the seed's booleans (true = auto, false = ask)."`
	AutoCreateBranch       bool          `key:"autoCreateBranch" default:"false" doc:"Create a git branch for an agent run before its first write."`
	OrchestratorTools      []string      `key:"orchestratorTools" default:"[write_file, run_terminal_command, run_subagent]" min:"1" doc:"Tools the orchestrator may call directly; everything else goes through sub-agents."`
}

// TimeoutSettings bound how long olly waits for the model server, so that a
// server that accepts the connection and then stalls cannot hold a run for
// ever. They are generous: loading a large model takes minutes.
type TimeoutSettings struct {
	Connect  time.Duration `key:"connect" default:"30000" min:"1000" max:"600000" doc:"How long connecting to the model server may take. Milliseconds, or a duration such as 30s."`
	Response time.Duration `key:"response" default:"300000" min:"5000" max:"3600000" doc:"How long the model server may take to start answering (Ollama loads the model and reads the prompt first). Failed attempts are retried. Milliseconds, or a duration such as 5m."`
	Idle     time.Duration `key:"idle" default:"180000" min:"5000" max:"3600000" doc:"How long a streamed answer may go silent (Ollama sends nothing while it buffers a tool call). Milliseconds, or a duration such as 3m."`
}

// CompletionSettings shape the inline completions of olly lsp.
type CompletionSettings struct {
	PrefixChars   int           `key:"prefixChars" default:"2000" min:"200" max:"32000" doc:"Characters before the cursor sent with a completion (cut back to whole lines)."`
	SuffixChars   int           `key:"suffixChars" default:"1000" min:"0" max:"16000" doc:"Characters after the cursor sent with a completion (cut back to whole lines)."`
	ContextChars  int           `key:"contextChars" default:"1500" min:"0" max:"16000" doc:"Characters of the other open files (around where you last worked in each) added to a completion's prompt. 0: none."`
	Debounce      time.Duration `key:"debounce" default:"100" min:"0" max:"2000" doc:"How long a completion waits for the next keystroke before it asks the model. Milliseconds, or a duration such as 150ms."`
	LatencyBudget time.Duration `key:"latencyBudget" default:"3000" min:"200" max:"60000" doc:"How long the model may take for a completion before it is dropped. Milliseconds, or a duration such as 2s."`
	KeepAlive     string        `key:"keepAlive" default:"30m" check:"keepAlive" doc:"How long Ollama keeps the completion model loaded between completions (keep_alive): a duration, seconds, or -1 for ever."`
}

// EmbeddingSettings choose the model for semantic session search.
type EmbeddingSettings struct {
	Model string `key:"model" default:"nomic-embed-text" doc:"Embedding model (Ollama /api/embed) for semantic session search. Empty: search is full-text only."`
}

// WorkspaceSettings widen what the agent may touch beyond the directory a
// session was opened in.
type WorkspaceSettings struct {
	ExtraRoots []string `key:"extraRoots" userOnly:"true" default:"[]" doc:"Directories the agent may read and write besides the workspace, without asking, in every session (absolute or ~/…; each must exist). --add-dir adds more for one run. User-only: only a person widens the workspace."`
}

// LSPSettings configure the language servers olly starts for diagnostics
// and code navigation.
type LSPSettings struct {
	Servers []string `key:"servers" userOnly:"true" default:"[]" doc:"Language servers instead of or besides the built-in ones, one entry each: \"LANGUAGE[ .EXT…]=COMMAND [ARG…]\" (\"go=gopls -remote=auto\", \"zig .zig=zls\"); \"LANGUAGE=\" turns a language's server off. User-only: it starts programs."`
}
