package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

// probeTool records, when it runs, whether the assistant message calling
// it is already in the log as another process would read it.
type probeTool struct {
	other *store.Store
	seen  *[]string
}

func (probeTool) Spec() llm.Tool {
	return llm.Tool{Name: "probe", Description: "Checks the log.", Parameters: json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`)}
}

func (p probeTool) Run(ctx context.Context, env *tools.Env, args tools.Args) (*tools.Result, error) {
	recs, err := p.other.Events(ctx, env.Session, 0, 0)
	if err != nil {
		return nil, err
	}
	i, _, err := args.Int("i")
	if err != nil {
		return nil, err
	}
	want := fmt.Sprintf(`"arguments":{"i":%d}`, i)
	found := "missing"
	for _, r := range recs {
		if r.Type == string(event.TypeAssistantMessage) && strings.Contains(string(r.Payload), want) {
			found = "stored"
		}
	}
	*p.seen = append(*p.seen, found)
	return &tools.Result{Content: "ok", Display: event.ToolAction{Text: "Probed"}}, nil
}

// A tool call is in the log before its tool runs, although the turn's
// events are committed in groups after a delay (an hour here, so only the
// agent's own Sync can have stored it).
func TestToolCallDurableBeforeToolRuns(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{CommitDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := store.Open(ctx, st.File(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var seen []string
	reg, err := tools.NewRegistry(probeTool{other: other, seen: &seen})
	if err != nil {
		t.Fatal(err)
	}
	prov := &memProvider{details: llm.ModelDetails{Capabilities: llm.Capabilities{Known: true, Chat: true, Tools: true}, ContextLength: 32768},
		next: func(req *llm.ChatRequest) []llm.ChatChunk {
			n := 0
			for _, m := range req.Messages {
				if m.Role == llm.RoleAssistant {
					n++
				}
			}
			if n < 3 {
				return []llm.ChatChunk{{ToolCalls: []llm.ToolCall{{Name: "probe", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, n))}}},
					{Done: true, DoneReason: llm.DoneStop}}
			}
			return textChunks("Done. [TASK_COMPLETE]", 8)
		}}
	a, err := New(Deps{Provider: prov, Tools: reg, Config: Config{Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := session.New(session.Deps{Store: st, Runner: a})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Create(ctx, session.CreateOptions{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: "probe three times"})
	if err != nil || res.Status != event.FinishDone {
		t.Fatalf("turn: %+v, %v", res, err)
	}
	if want := []string{"stored", "stored", "stored"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("the call in the log when its tool ran: %v, want %v", seen, want)
	}
}
