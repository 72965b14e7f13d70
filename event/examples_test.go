package event

import (
	"encoding/json"
)

// example is one sample payload per type, used for the round-trip tests and
// for the reference page docs/events.md.
type example struct {
	payload Payload
	about   string
}

func examples() []example {
	ptr := func(s string) *string { return &s }
	yes := true
	return []example{
		{TurnStarted{Mode: "agent", Model: "qwen3:8b", Dispatch: &Dispatch{Intent: IntentCreate, NeedsWrite: true, Confidence: 0.85, Reasoning: "asks for a new file"}}, "The agent starts working on a prompt (dispatch: how an agent-mode prompt was classified)."},
		{UserMessage{Text: "add a hello world main.go like @shot.png", Attachments: []Attachment{{Path: "go.mod", Content: "module x\n"},
			{Path: "shot.png", Image: &ImageRef{MimeType: "image/png", SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Size: 48213}}}},
			"The person's prompt; also the conversation entry the model sees. `steering: true` marks a message sent into the running turn (read between two iterations; part of that turn, not a branch point).\n\n" +
				"An attached image (`@shot.png`, or pi's image content on an RPC `prompt`, `steer` or `follow_up`, named `image 1`, `image 2`…) carries an `image` reference — type, SHA-256 and size — and no bytes. " +
				"Before the `user_message` is recorded, the session service stores the bytes once, keyed by their SHA-256, in the store's `images` table (migration 0008); the conversation loads them by hash when it builds a request for a model, " +
				"so a resumed, branched or forked session sends the same images, while live frames, RPC events, `olly sessions show` and exports carry only the reference (exports print name, type, size and hash prefix). " +
				"The type is read from the bytes (PNG, JPEG, GIF or WebP, at most 10 MB); anything else is a warning and the prompt goes on without it. " +
				"A model whose server reports no `vision` capability fails the turn with an error naming the models that have it (the models table); the prompt stays in the log and the prompt history, and later turns on such a model leave earlier images out with a note. " +
				"Servers that report no capabilities (OpenAI-compatible, not Ollama) are sent the images. Deleting a session deletes, in the same transaction, every image of that session's `user_message`s that no remaining `user_message` refers to (`store.DeleteSession`, `images_gc.go`); a session without images reads only its own events. An image shared with another session — the same bytes attached there, or a fork's copy — stays, and one stored in the last minute (by any olly process sharing the database: the grace is the row's `created_at`, which storing the same bytes again renews) stays too, since its message may not be appended yet (a later delete of a session referring to it collects it; one never referred to stays)."},
		{TextDelta{Iteration: 1, Text: "I'll create"}, "Streamed assistant text (ephemeral; append to the current block)."},
		{ThinkingDelta{Iteration: 1, Text: "The user wants"}, "Streamed reasoning (ephemeral)."},
		{ThinkingBlock{Iteration: 1, Content: "The user wants a main.go.", DurationMs: 1800}, "One iteration's reasoning, shown collapsed."},
		{AssistantMessage{Iteration: 1, Text: "I'll create main.go.", Content: "I'll create main.go.", ToolCalls: []ToolCall{{ID: "call_1", Name: "write_file", Arguments: json.RawMessage(`{"path":"main.go","content":"package main\n"}`)}}}, "One iteration's output: displayed text and the history entry."},
		{ToolResult{ToolCallID: "call_1", ToolName: "write_file", Content: "Wrote main.go (+1 −0)"}, "A tool result as the model sees it (not rendered)."},
		{ControlMessage{Kind: ControlContinuation, Iteration: 2, Content: "<agent_control>{\"state\":\"need_tools\"}</agent_control>"}, "A message the agent added to the conversation (not rendered)."},
		{FinalMessage{Text: "Created main.go and ran it."}, "The summary after the turn's tool blocks (plan: true marks a plan-mode plan that can be implemented)."},
		{Compaction{Summary: "<analysis>…</analysis>", FirstKeptSeq: 120, TokensBefore: 46000, TokensAfter: 9000}, "Earlier conversation replaced by a summary."},
		{ProgressGroupStart{GroupID: "g1", Title: "Writing files"}, "Opens a group of tool actions."},
		{ToolAction{GroupID: "g1", ActionID: "a1", Tool: "write_file", Status: ActionSuccess, Text: "Wrote main.go", FilePath: "main.go", CheckpointID: "ckpt_1", Additions: 7}, "A tool call's state; same actionId updates in place."},
		{ToolOutput{ActionID: "a2", Text: "ok  \texample\t0.01s\n"}, "Live output of a running command (ephemeral)."},
		{ProgressGroupFinish{GroupID: "g1"}, "Closes a group."},
		{SubagentThinking{GroupID: "g2", Content: "Start from cmd/.", DurationMs: 900}, "A sub-agent's reasoning, attached to its group."},
		{ApprovalRequested{ApprovalID: "ap1", ActionID: "a3", Kind: ApprovalCommand, Command: "rm -rf build", Cwd: ".", Severity: "high", Reason: "recursive forced deletion", Rule: "rm-recursive-force", Words: []string{"rm", "-rf"}, Mode: ApprovalModeAuto, Sandbox: &CommandSandbox{Policy: SandboxWorkspaceWrite, Active: true, Mechanism: "landlock"}}, "Asks the person to approve an action. `mode` is the approval mode; `sandbox` says where an approved command runs (`policy` workspace-write or unsandboxed, whether a kernel sandbox is `active`, `escalation`: the model's reason for asking to run outside it)."},
		{ApprovalResolved{ApprovalID: "ap1", Kind: ApprovalCommand, Decision: DecisionApproved, Command: "rm -rf build/tmp"}, "The answer to an approval request (`outsideSandbox`: the person let the command run outside the sandbox)."},
		{FilesChanged{CheckpointID: "ckpt_1", Status: "pending", Files: []ChangedFile{{Path: "main.go", Action: "created", Additions: 7}}}, "Files of a checkpoint; merge by checkpointId."},
		{FileChangeResult{CheckpointID: "ckpt_1", FilePath: "main.go", Action: "undo", Hunk: 2, Success: true}, "Keep or undo of one file or hunk."},
		{KeepUndoResult{CheckpointID: "ckpt_1", Action: "keep", Success: true}, "Keep-all or undo-all of a checkpoint."},
		{TokenUsage{PromptTokens: 5200, CompletionTokens: 310, ContextWindow: 40960, Categories: TokenCategories{System: 1100, ToolDefinitions: 900, Messages: 1200, ToolResults: 1700, Instructions: 300}}, "Context use after an iteration."},
		{TitleChanged{Title: "Hello world in Go"}, "The session's title."},
		{SessionSettings{Model: ptr("qwen3:8b"), AutoApproveCommands: &yes}, "A change of the session's own settings."},
		{TodoList{Todos: []Todo{{ID: "1", Content: "Add the flag", Status: TodoCompleted}, {ID: "2", Content: "Update the docs", Status: TodoInProgress}, {ID: "3", Content: "Run the tests", Status: TodoPending}}}, "The agent's todo list for multi-step work, whole (todo_write); the last one on the branch is the current list."},
		{Error{Message: "cannot reach Ollama at http://localhost:11434 — is `ollama serve` running?", Kind: "connection"}, "A failure shown to the person."},
		{Warning{Message: "model phi3 has no native tool calling — olly uses text tool calls", Code: "text_tools"}, "A banner."},
		{MCPServerFailed{Server: "github", Transport: "stdio", Error: "MCP server github: connect: exit status 1", RetryInMs: 2000}, "An MCP server could not be started or reached, or stopped; its tools are missing until a retry (after `retryInMs`) succeeds. Shown as a warning."},
		{Status{Text: "Writing main.go…"}, "A transient spinner line (ephemeral)."},
		{ModelRetry{Iteration: 1, Phase: RetryStart, Attempt: 1, MaxAttempts: 3, DelayMs: 1000, Error: "server error 503"}, "A model request failed transiently and is retried after the delay; a `phase` `end` event (`success`, last `attempt`, final `error`) closes the retries (ephemeral). The TUI and the web page show `retrying in 1s (attempt 1/3): server error 503` under the turn until its next output (`timeline.Item.Retry`); a stored timeline never holds it."},
		{HookRun{Event: "PreToolUse", Command: "./.olly/hooks/no-rm.sh", Source: ".olly/settings.json", Tool: "Bash", ExitCode: 2, DurationMs: 14, Blocked: true, Reason: "rm -rf is not allowed here"}, "One run of a hook (docs/extensibility.md): its event, command, settings file, the tool it saw, exit code, duration and whether it blocked."},
		{TrustResolved{RequestID: "mcp-github-3f2a9c", Kind: "mcp", Name: "github", Decision: "trust", Fingerprint: "3f2a9c41d0b7e6a5"}, "A person answered a trust prompt of the session's workspace (`decision` trust, not_now or never): every frontend showing the session takes the prompt down."},
		{TurnFinished{Status: FinishDone, Iterations: 3}, "Closes a turn."},
	}
}
