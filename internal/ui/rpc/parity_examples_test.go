package rpc

import (
	"encoding/json"

	"github.com/olly-agent/olly/rpcproto"
)

// parityExamples are the examples of parityCommands, for the reference.
func parityExamples(model rpcproto.PiModel) map[string]example {
	return map[string]example{
		"fork": {`"req_40"`, rpcproto.ForkRequest{EntryID: "14"}, rpcproto.ForkResult{Text: "now add a flag for the port", SessionID: "01JD61CD",
			ParentSessionID: "01JD5ZQ8", Workspace: "/home/me/proj", LastSeq: 13}},
		"get_fork_messages": {`"req_41"`, rpcproto.Empty{}, rpcproto.ForkMessages{Messages: []rpcproto.ForkMessage{
			{EntryID: "2", Text: "add a hello world main.go", Seq: 2, Turn: 1}, {EntryID: "14", Text: "now add a flag for the port", Seq: 14, Turn: 2}}}},
		"set_session_settings": {`"req_42"`, rpcproto.SessionSettingsRequest{ExplorerModel: ptr("qwen3:1.7b"), SensitiveFilePatterns: json.RawMessage(`{"**/*.env":"ask","**":"auto"}`)},
			rpcproto.SessionSettingsResult{SessionID: "01JD5ZQ8", ExplorerModel: "qwen3:1.7b",
				SensitiveFilePatterns: []rpcproto.FileRule{{Pattern: "**/*.env", Action: "ask"}, {Pattern: "**", Action: "auto"}}}},
		"cycle_model":          {`"req_43"`, rpcproto.Empty{}, &rpcproto.CycleModelResult{Model: model, ThinkingLevel: "medium"}},
		"set_thinking_level":   {`"req_44"`, rpcproto.ThinkingLevelRequest{Level: "high"}, rpcproto.Empty{}},
		"cycle_thinking_level": {`"req_45"`, rpcproto.Empty{}, &rpcproto.ThinkingLevelResult{Level: "high"}},
		"abort_and_prompt":     {`"req_46"`, rpcproto.MessageRequest{Message: "stop, fix the test first"}, rpcproto.PromptResult{SessionID: "01JD5ZQ8"}},
		"set_steering_mode":    {`"req_47"`, rpcproto.QueueModeRequest{Mode: "one-at-a-time"}, rpcproto.Empty{}},
		"set_follow_up_mode":   {`"req_48"`, rpcproto.QueueModeRequest{Mode: "all"}, rpcproto.Empty{}},
		"set_interrupt_mode":   {`"req_49"`, rpcproto.InterruptModeRequest{Mode: "immediate"}, rpcproto.Empty{}},
		"set_auto_retry":       {`"req_56"`, rpcproto.EnabledRequest{Enabled: ptr(false)}, rpcproto.Empty{}},
		"abort_retry":          {`"req_57"`, rpcproto.Empty{}, rpcproto.Empty{}},
	}
}

func ptr[T any](v T) *T { return &v }
