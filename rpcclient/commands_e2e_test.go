package rpcclient

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestPersonRunsCommands(t *testing.T) {
	e := newEnv(t)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)

	// A read-only command runs at once.
	res, err := c.Bash(ctx, "echo hello from the shell")
	if err != nil || res.ExitCode != 0 || !strings.Contains(res.Output, "hello from the shell") || res.Turn != 1 {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	// One that changes things asks first, like the agent's.
	done := make(chan *BashResult, 1)
	go func() {
		r, err := c.Bash(ctx, "touch made.txt")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	ap := w.typ(event.TypeApprovalRequested).Data.(event.ApprovalRequested)
	if ap.Command != "touch made.txt" {
		t.Fatalf("approval for %q", ap.Command)
	}
	if _, err := c.Approve(ctx, ap.ApprovalID, ""); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r == nil || r.ExitCode != 0 || e.read("made.txt") != "" {
		t.Fatalf("touch: %+v, made.txt %q", r, e.read("made.txt"))
	}
	// abort_bash stops a long command.
	on := true
	if tg, err := c.SetAutoApprove(ctx, &on, nil); err != nil || !tg.Commands || tg.SensitiveEdits {
		t.Fatalf("set_auto_approve: %+v, %v", tg, err)
	}
	go func() {
		r, err := c.Bash(ctx, "sleep 30")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	w.until("the sleep running", func(ev event.Event) bool {
		a, ok := ev.Data.(event.ToolAction)
		return ok && a.Status == event.ActionRunning && strings.Contains(a.Text, "sleep")
	})
	start := time.Now()
	if ab, err := c.AbortBash(ctx); err != nil || !ab.Aborted {
		t.Fatalf("abort_bash: %+v, %v", ab, err)
	}
	if r := <-done; r == nil || !r.Cancelled || time.Since(start) > 10*time.Second {
		t.Fatalf("the aborted command: %+v after %s", r, time.Since(start))
	}
	// The model sees what the person ran, with the next prompt.
	e.reply(llmtest.Reply(llmtest.Text("I see the file. [TASK_COMPLETE]")))
	if _, err := c.Prompt(ctx, PromptRequest{Message: "what did I do?"}); err != nil {
		t.Fatal(err)
	}
	// The commands were turns 1–3; the prompt is turn 4.
	w.until("the prompt's end", func(ev event.Event) bool { return ev.Type() == event.TypeTurnFinished && ev.Turn == 4 })
	reqs := e.turnRequests()
	var sent strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		sent.WriteString(m.Content + "\n")
	}
	for _, want := range []string{"$ echo hello from the shell", "hello from the shell", "$ touch made.txt"} {
		if !strings.Contains(sent.String(), want) {
			t.Errorf("the model was not shown %q", want)
		}
	}
	st, err := c.GetSessionStats(ctx)
	if err != nil || st.Turns != 4 || st.UserMessages != 4 {
		t.Errorf("stats %+v, %v", st, err)
	}
}

func TestSessionManagement(t *testing.T) {
	e := newEnv(t)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)

	models, err := c.GetAvailableModels(ctx)
	if err != nil || len(models.Models) != 1 || models.Models[0].ID != testModel || !models.Models[0].Tools || models.Models[0].ContextWindow != 32768 {
		t.Fatalf("models %+v, %v", models, err)
	}
	var rerr *Error
	if _, err := c.SetModel(ctx, "missing:1b"); !errors.As(err, &rerr) {
		t.Errorf("set_model of a missing model: %v", err)
	}
	if m, err := c.SetModel(ctx, testModel); err != nil || m.ID != testModel {
		t.Errorf("set_model: %+v, %v", m, err)
	}

	e.reply(llmtest.Reply(llmtest.Text("Zebras are striped. [TASK_COMPLETE]")))
	if _, err := c.Prompt(ctx, PromptRequest{Message: "tell me about zebras"}); err != nil {
		t.Fatal(err)
	}
	w.finished()
	first := c.Ready().SessionID
	if _, err := c.SetSessionName(ctx, "Zebra facts"); err != nil {
		t.Fatal(err)
	}
	found, err := c.SearchSessions(ctx, SearchRequest{Query: "zebras"})
	if err != nil || len(found.Sessions) != 1 || found.Sessions[0].Session.ID != first || !found.WordsOnly {
		t.Errorf("search: %+v, %v", found, err)
	}
	page, err := c.ExportHTML(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(page.Path); err != nil || !strings.Contains(string(b), "Zebra facts") {
		t.Errorf("export %s: %v", page.Path, err)
	}
	if _, err := c.Compact(ctx, ""); !errors.As(err, &rerr) || !strings.Contains(rerr.Message, "nothing to compact") {
		t.Errorf("compact of a short conversation: %v", err)
	}
	if err := c.SetAutoCompaction(ctx, false); err != nil {
		t.Fatalf("set_auto_compaction: %v", err)
	}
	if st, err := c.GetState(ctx); err != nil || st.AutoCompactionEnabled {
		t.Errorf("state after turning auto-compaction off: %+v, %v", st, err)
	}

	ns, err := c.NewSession(ctx, NewSessionRequest{})
	if err != nil || ns.SessionID == first {
		t.Fatalf("new_session: %+v, %v", ns, err)
	}
	if st, err := c.GetState(ctx); err != nil || st.SessionID != ns.SessionID || st.MessageCount != 0 {
		t.Errorf("state of the new session: %+v, %v", st, err)
	}
	list, err := c.ListSessions(ctx, ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 2 {
		t.Errorf("list: %+v, %v", list, err)
	}
	back, err := c.SwitchSession(ctx, first[:10])
	if err != nil || back.SessionID != first || back.Title != "Zebra facts" {
		t.Errorf("switch back by prefix: %+v, %v", back, err)
	}
	if text, err := c.GetLastAssistantText(ctx); err != nil || text == nil || *text != "Zebras are striped." {
		t.Errorf("last text after switching back: %v, %v", text, err)
	}
	cmds, err := c.GetCommands(ctx)
	if err != nil || len(cmds.Commands) == 0 {
		t.Errorf("commands %+v, %v", cmds, err)
	}
}

func TestStartFailureIncludesStderr(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"bad event family", Options{Events: "nope", Args: []string{"--cwd", e.ws}}, `--rpc-events "nope"`},
		{"print mode too", Options{Args: []string{"--cwd", e.ws, "-p"}}, "two modes"},
		{"missing workspace", Options{Args: []string{"--cwd", e.ws + "/nope"}}, "no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Binary, tt.opts.Env = ollyBin, e.environ
			c, err := Start(ctx, tt.opts)
			if err == nil {
				_ = c.Close()
				t.Fatal("olly started")
			}
			if !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to include olly's stderr (%q)", err, tt.want)
			}
		})
	}
}
