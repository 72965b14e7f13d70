package rpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/rpcproto"
)

// fuzzSeeds are lines a client might send, well-formed or not.
var fuzzSeeds = []string{
	`{"type":"get_state"}`,
	`{"id":"1","type":"prompt","message":"hello"}`,
	`{"id":2,"type":"prompt","message":"x","streamingBehavior":"steer"}`,
	`{"type":"approve","approvalId":"ap_1","command":"ls"}`,
	`{"type":"keep","path":"a.go","hunk":-3}`,
	`{"type":"get_events","afterSeq":1e309}`,
	`{"type":"review_navigate","move":"sideways"}`,
	`{"type":"new_session"}` + "\n" + `{"type":"get_messages"}`,
	`{"type":"abort"}` + "\r\n" + `{"type":"follow_up","message":"later"}`,
	`{"id":null,"type":null}`,
	`{"id":[1],"type":"get_state"}`,
	`{"type":"prompt","message":"` + "\x00\xff" + `"}`,
	`[[[[[[[[[[[[[[[[[[[[`,
	`{"type":"get_state"`,
	"\x00\x01\x02 not json at all",
	`{"type":"set_session_name","name":"` + strings.Repeat("é", 300) + `"}`,
	`{"type":"switch_session","sessionId":"0"}`,
	`{"type":"branch","entryId":"not-a-number"}`,
}

// FuzzServer feeds random bytes (and random JSON) to a server on pipes:
// it must never crash, and a well-formed get_state after the garbage must
// still get its response.
func FuzzServer(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	b := newBackend(f, quickRunner{})
	f.Fuzz(func(t *testing.T, input []byte) {
		c := serve(t, b, nil)
		if _, err := c.in.Write(append(input, '\n')); err != nil {
			t.Fatalf("the server stopped reading: %v", err)
		}
		c.send(`{"type":"get_state","id":"fuzz-probe"}`)
		r := c.response(`"fuzz-probe"`)
		if !r.Success {
			t.Fatalf("get_state after the input failed: %s", r.raw)
		}
		c.close()
	})
}

// FuzzDecodeRequest checks the command-line parser alone: no panic, and
// what it accepts has a type and an id that is a string or a number.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := decodeRequest(line)
		if req.id != nil && !isStringOrNumber(req.id) {
			t.Fatalf("id %s kept though it is not a string or a number", req.id)
		}
		if err != nil {
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not UTF-8: %q", err)
			}
			return
		}
		var back map[string]json.RawMessage
		if json.Unmarshal(req.body, &back) != nil {
			t.Fatalf("accepted a body that is not an object: %q", line)
		}
		if !bytes.Equal(req.body, line) {
			t.Fatal("the body is not the line")
		}
		// Every command's fields decode and validate without a panic.
		for _, cmd := range commandList() {
			v := reflect.New(cmd.req).Interface()
			if decodeBody(req.body, v) == nil {
				_ = checkRequired(v)
			}
		}
	})
}

// FuzzPiMapper feeds the pi mapper olly events in any order — replays cut
// anywhere, turns interleaved, iterations out of order — and checks that
// it never fails and keeps runs balanced: an agent_end only closes an
// agent_start.
func FuzzPiMapper(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
	f.Add([]byte{0, 1, 4, 4, 0, 12, 7, 14, 14})
	f.Add([]byte{5, 6, 9, 200, 13, 0, 0, 14})
	calls := []llm.ToolCall{{ID: "c1", Name: "ls"}, {ID: "c2", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}
	f.Fuzz(func(t *testing.T, script []byte) {
		m := newPiMapper("ollama", script != nil && len(script)%2 == 0)
		open := 0
		for i, op := range script {
			iter := int(op>>4)%3 + 1
			turn := int(op>>6) + 1
			var p event.Payload
			switch op % 15 {
			case 0:
				p = event.TurnStarted{Mode: []event.Mode{event.ModeAgent, event.ModeBash}[int(op>>5)%2]}
			case 1:
				p = event.UserMessage{Text: "u"}
			case 2:
				p = event.ThinkingDelta{Iteration: iter, Text: "t"}
			case 3:
				p = event.ThinkingBlock{Iteration: iter, Content: "thought"}
			case 4:
				p = event.TextDelta{Iteration: iter, Text: "x"}
			case 5:
				p = event.AssistantMessage{Iteration: iter, Text: "y", ToolCalls: calls[:int(op>>4)%3]}
			case 6:
				p = event.TokenUsage{PromptTokens: i}
			case 7:
				p = event.ProgressGroupStart{GroupID: "g" + string(rune('0'+iter))}
			case 8:
				p = event.ToolAction{GroupID: "g" + string(rune('0'+iter)), ActionID: "a" + string(rune('0'+int(op>>4)%4))}
			case 9:
				p = event.ToolOutput{ActionID: "a" + string(rune('0'+int(op>>4)%4)), Text: "o"}
			case 10:
				p = event.ToolResult{ToolCallID: calls[int(op>>4)%2].ID, ToolName: "ls", Content: "r"}
			case 11:
				p = event.ControlMessage{Kind: event.ControlContinuation}
			case 12:
				p = event.FinalMessage{Text: "done"}
			case 13:
				p = event.Error{Message: "e"}
			default:
				p = event.TurnFinished{Status: []string{event.FinishDone, event.FinishCanceled, event.FinishFailed}[int(op>>4)%3]}
			}
			for _, pe := range m.Map(event.Event{Session: "s", Turn: turn, Data: p}) {
				b, err := json.Marshal(pe)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				var head struct{ Type string }
				_ = json.Unmarshal(b, &head)
				switch head.Type {
				case rpcproto.PiAgentStart:
					open++
				case rpcproto.PiAgentEnd:
					open--
				}
				if open < 0 || open > 1 {
					t.Fatalf("step %d: %d runs open after %s", i, open, head.Type)
				}
			}
		}
	})
}
