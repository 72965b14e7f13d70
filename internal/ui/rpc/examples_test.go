package rpc

import (
	"maps"
	"time"

	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/rpcproto"
)

// example is one command exchange for docs/rpc.md: the request's id and
// fields, and the result's data.
type example struct {
	id   string
	req  any
	resp any
}

func yes() *bool { v := true; return &v }

func commandExamples() map[string]example {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	model := rpcproto.PiModel{ID: "qwen3:8b", Name: "qwen3:8b", API: "ollama", Provider: "ollama", BaseURL: "http://localhost:11434",
		Reasoning: true, Input: []string{"text"}, ContextWindow: 40960, Tools: true, Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M"}
	sess := store.Session{ID: "01JD5ZQ8", Title: "Hello world in Go", Workspace: "/home/me/proj", Mode: "agent", Model: "qwen3:8b",
		Status: store.StatusIdle, LeafSeq: 23, CreatedAt: at, UpdatedAt: at}
	hunk := checkpoint.Hunk{Number: 1, OldStart: 2, OldLines: 1, NewStart: 2, NewLines: 1, OldText: "line b\n", NewText: "line b, improved\n",
		ContextBefore: "line a\n", ContextAfter: "line c\n"}
	file := checkpoint.FileReview{CheckpointID: "ckpt_1", Path: "notes.txt", Action: "modified", Additions: 2, Deletions: 2,
		Hunks: []checkpoint.Hunk{hunk}}
	pos := checkpoint.ChangePosition{Current: 1, Total: 2, FilePath: "notes.txt", CheckpointID: "ckpt_1", Hunk: 1}
	outcome := checkpoint.Outcome{Action: "keep", CheckpointID: "ckpt_1", Status: store.CheckpointPending,
		Files: []checkpoint.FileOutcome{{Path: "notes.txt", Action: "modified", Hunk: 1, Status: store.FilePending, Applied: 1, Additions: 1, Deletions: 1}}}
	wfile := wireFileReview(file)
	user := rpcproto.PiMessage{Role: rpcproto.PiRoleUser, Content: []rpcproto.PiContent{{Type: "text", Text: "what is here?"}}, Timestamp: at.UnixMilli()}
	answer := rpcproto.PiMessage{Role: rpcproto.PiRoleAssistant, Content: []rpcproto.PiContent{{Type: "text", Text: "One file, go.mod."}}, API: "ollama", Provider: "ollama",
		Model: "qwen3:8b", Usage: &rpcproto.PiUsage{Input: 1200, Output: 9, TotalTokens: 1209}, StopReason: rpcproto.PiStopStop, Timestamp: at.UnixMilli()}
	text := "One file, go.mod."
	ev := event.Event{Session: "01JD5ZQ8", Seq: 2, ParentSeq: 1, Turn: 1, At: at, Data: event.UserMessage{Text: "what is here?"}}
	out := map[string]example{
		"prompt":              {`"req_1"`, rpcproto.PromptRequest{Message: "add a test for Parse in @parse.go"}, rpcproto.PromptResult{SessionID: "01JD5ZQ8"}},
		"steer":               {`"req_2"`, rpcproto.MessageRequest{Message: "use table-driven tests"}, rpcproto.PromptResult{Queued: wireSteer, SessionID: "01JD5ZQ8"}},
		"follow_up":           {`"req_3"`, rpcproto.MessageRequest{Message: "then run go vet"}, rpcproto.PromptResult{Queued: wireFollowUp, SessionID: "01JD5ZQ8"}},
		"abort":               {`"req_4"`, rpcproto.Empty{}, rpcproto.AbortResult{Aborted: true, Dropped: 1}},
		"compact":             {`"req_5"`, rpcproto.CompactRequest{CustomInstructions: "keep the failing test names"}, rpcproto.CompactResult{Summary: "<analysis>…</analysis>", FirstKeptEntryID: "120", FirstKeptSeq: 120, TokensBefore: 46000, TokensAfter: 9000}},
		"set_auto_compaction": {`"req_6"`, rpcproto.EnabledRequest{Enabled: yes()}, rpcproto.Empty{}},
		"bash":                {`"req_7"`, rpcproto.BashRequest{Command: "go test ./..."}, &rpcproto.BashResult{Output: "ok  \texample\t0.01s\n", ExitCode: 0, Command: "go test ./...", Turn: 3}},
		"abort_bash":          {`"req_8"`, rpcproto.Empty{}, rpcproto.AbortResult{Aborted: true}},
		"new_session":         {`"req_9"`, rpcproto.NewSessionRequest{}, rpcproto.SwitchResult{SessionID: "01JD60AB", Workspace: "/home/me/proj"}},
		"switch_session":      {`"req_10"`, rpcproto.SwitchRequest{SessionID: "01JD5ZQ8"}, rpcproto.SwitchResult{SessionID: "01JD5ZQ8", Workspace: "/home/me/proj", Title: "Hello world in Go", LastSeq: 23}},
		"branch":              {`"req_11"`, rpcproto.BranchRequest{EntryID: "2"}, rpcproto.BranchResult{Text: "add a hello world main.go", Seq: 2, Turn: 1}},
		"set_session_name":    {`"req_12"`, rpcproto.NameRequest{Name: "Parser tests"}, rpcproto.NameResult{SessionID: "01JD5ZQ8", Name: "Parser tests"}},
		"set_model":           {`"req_13"`, rpcproto.SetModelRequest{ModelID: "qwen3:8b"}, model},
		"set_mode":            {`"req_14"`, rpcproto.ModeRequest{Mode: "plan"}, rpcproto.ModeResult{Mode: "plan"}},
		"export_html":         {`"req_15"`, rpcproto.ExportRequest{OutputPath: "session.html"}, rpcproto.PathResult{Path: "/home/me/proj/session.html"}},
		"approve":             {`"req_16"`, rpcproto.ApproveRequest{ApprovalID: "ap1", Command: "rm -rf build/tmp"}, rpcproto.ApprovalResult{ApprovalID: "ap1", Decision: event.DecisionApproved}},
		"deny":                {`"req_17"`, rpcproto.DenyRequest{ApprovalID: "ap2", Reason: "the build cache is needed"}, rpcproto.ApprovalResult{ApprovalID: "ap2", Decision: event.DecisionDenied}},
		"set_auto_approve":    {`"req_18"`, rpcproto.AutoApproveRequest{Commands: yes()}, rpcproto.AutoApprove{Commands: true}},
		"list_changes": {`"req_19"`, rpcproto.Empty{}, rpcproto.Changes{SessionID: "01JD5ZQ8", Additions: 2, Deletions: 2,
			Checkpoints: each([]checkpoint.CheckpointStats{{Checkpoint: store.Checkpoint{ID: "ckpt_1", SessionID: "01JD5ZQ8", Turn: 1, Status: store.CheckpointPending, TotalAdditions: 2, TotalDeletions: 2, CreatedAt: at},
				Files: []checkpoint.FileStats{{Path: "notes.txt", Action: "modified", Status: store.FilePending, Additions: 2, Deletions: 2}}}}, wireCheckpoint),
			Files: []rpcproto.FileReview{wireFileReview(file)}, Position: wirePosition(pos)}},
		"keep": {`"req_20"`, rpcproto.ChangeRequest{Path: "notes.txt", Hunk: 1}, rpcproto.ChangeResult{Outcomes: []rpcproto.Outcome{wireOutcome(outcome)}, Conflicts: []rpcproto.Conflict{},
			Position: rpcproto.ChangePosition{Current: 1, Total: 1, FilePath: "notes.txt", CheckpointID: "ckpt_1", Hunk: 1}}},
		"undo": {`"req_21"`, rpcproto.ChangeRequest{All: true}, rpcproto.ChangeResult{Outcomes: []rpcproto.Outcome{wireOutcome(checkpoint.Outcome{Action: "undo", CheckpointID: "ckpt_1", Status: store.CheckpointUndone,
			Files: []checkpoint.FileOutcome{{Path: "notes.txt", Action: "modified", Resolved: true, Status: store.FileUndone, Applied: 1}}})},
			Conflicts: []rpcproto.Conflict{}}},
		"review_navigate": {`"req_22"`, rpcproto.NavigateRequest{Move: "next"}, rpcproto.Review{Position: wirePosition(pos), File: &wfile, Hunk: &wfile.Hunks[0]}},
		"get_state": {`"req_23"`, rpcproto.Empty{}, rpcproto.State{Model: &model, ThinkingLevel: "medium", IsStreaming: true, SteeringMode: "all", FollowUpMode: "one-at-a-time", InterruptMode: "wait",
			SessionID: "01JD5ZQ8", SessionName: "Hello world in Go", AutoCompactionEnabled: true, MessageCount: 4, PendingMessageCount: 1,
			Workspace: "/home/me/proj", Mode: "agent", Status: "generating",
			PendingApprovals: []event.ApprovalRequested{{ApprovalID: "ap1", ActionID: "a3", Kind: event.ApprovalCommand, Command: "rm -rf build", Cwd: ".", Severity: "high", Reason: "recursive forced deletion"}},
			Queue:            wireQueue(session.QueueCounts{FollowUp: 1}), LastSeq: 23, Events: rpcproto.FamilyBoth}},
		"get_messages":            {`"req_24"`, rpcproto.Empty{}, rpcproto.MessagesResult{Messages: []rpcproto.PiMessage{user, answer}}},
		"get_last_assistant_text": {`"req_25"`, rpcproto.Empty{}, rpcproto.TextResult{Text: &text}},
		"get_branch_messages":     {`"req_26"`, rpcproto.Empty{}, rpcproto.BranchMessages{Messages: []rpcproto.BranchMessage{{EntryID: "2", Seq: 2, Turn: 1, Text: "add a hello world main.go"}}}},
		"get_session_stats": {`"req_27"`, rpcproto.Empty{}, rpcproto.SessionStats{SessionID: "01JD5ZQ8", UserMessages: 2, AssistantMessages: 3, ToolCalls: 2, ToolResults: 2, TotalMessages: 7,
			Tokens: rpcproto.TokenTotals{Input: 12400, Output: 610, Total: 13010}, Turns: 2, ContextWindow: 40960, ContextTokens: 5200, PendingAdditions: 7,
			ContextCategories: event.TokenCategories{System: 1100, ToolDefinitions: 900, Messages: 1200, ToolResults: 1700, Instructions: 300}}},
		"get_available_models": {`"req_28"`, rpcproto.Empty{}, rpcproto.ModelsResult{Models: []rpcproto.PiModel{model}}},
		"get_commands":         {`"req_29"`, rpcproto.Empty{}, rpcproto.CommandsResult{Commands: []rpcproto.CommandInfo{{Name: "plan", Description: "explore read-only and write a plan, which you can then implement", Usage: "/plan <task>", Source: "builtin"}}}},
		"get_events":           {`"req_30"`, rpcproto.EventsRequest{AfterSeq: 1, Limit: 1}, rpcproto.EventsResult{Events: []event.Event{ev}, LastSeq: 2, More: true}},
		"list_sessions":        {`"req_31"`, rpcproto.ListSessionsRequest{Limit: 10}, rpcproto.SessionsResult{Sessions: []rpcproto.Session{wireSession(sess)}}},
		"search_sessions": {`"req_32"`, rpcproto.SearchRequest{Query: "hello world"}, wireSearch(&store.SearchResult{Sessions: []store.SessionMatch{{Session: sess, Score: 0.03,
			Hits: []store.EventMatch{{Seq: 2, Turn: 1, Type: "user_message", At: at, Snippet: "add a «hello» «world» main.go", Score: 0.03}}}},
			WordsOnly: true, Notice: "searched by words only: no embedding model is configured"})},
	}
	for name, e := range parityExamples(model) {
		out[name] = e
	}
	maps.Copy(out, manageExamples(at))
	maps.Copy(out, settingsExamples())
	maps.Copy(out, trustExamples())
	return out
}
