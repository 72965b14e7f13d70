package rpcclient

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/timeline"
)

func TestApproveWithEditedCommand(t *testing.T) {
	e := newEnv(t)
	e.reply(
		llmtest.Reply(llmtest.Text("Creating it."), llmtest.ToolCall("run_terminal_command", `{"command":"touch asked.txt"}`)),
		llmtest.Reply(llmtest.Text("Created the file. [TASK_COMPLETE]")),
	)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)
	res, err := c.Prompt(ctx, PromptRequest{Message: "create a file"})
	if err != nil || res.Queued != "" || res.SessionID != c.Ready().SessionID {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	ap := w.typ(event.TypeApprovalRequested).Data.(event.ApprovalRequested)
	if ap.Command != "touch asked.txt" || ap.Kind != event.ApprovalCommand {
		t.Fatalf("approval request %+v", ap)
	}
	st, err := c.GetState(ctx)
	if err != nil || !st.IsStreaming || len(st.PendingApprovals) != 1 || st.PendingApprovals[0].ApprovalID != ap.ApprovalID {
		t.Fatalf("state while waiting: %+v, %v", st, err)
	}
	if _, err := c.Approve(ctx, ap.ApprovalID, "touch edited.txt"); err != nil {
		t.Fatal(err)
	}
	resolved := w.typ(event.TypeApprovalResolved).Data.(event.ApprovalResolved)
	if resolved.Decision != event.DecisionApproved || resolved.Command != "touch edited.txt" {
		t.Errorf("resolved %+v", resolved)
	}
	if fin := w.finished(); fin.Status != event.FinishDone {
		t.Fatalf("turn ended %+v", fin)
	}
	if e.read("edited.txt") != "" || e.read("asked.txt") != "<missing>" {
		t.Errorf("the edited command should have run instead of the asked one: edited.txt %q, asked.txt %q", e.read("edited.txt"), e.read("asked.txt"))
	}
	reqs := e.turnRequests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].LastMessage().Content+toolResults(reqs[1]), "touch edited.txt") {
		t.Errorf("the model was not told the command ran as edited: %d requests", len(reqs))
	}
	// Answering again is refused: the request is settled.
	var rerr *Error
	if _, err := c.Approve(ctx, ap.ApprovalID, ""); !errors.As(err, &rerr) || !strings.Contains(rerr.Message, "no such pending request") {
		t.Errorf("second answer: %v", err)
	}
}

// toolResults joins the tool messages of a request.
func toolResults(r *llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			b.WriteString(m.Content)
		}
	}
	return b.String()
}

func TestDenyWithReason(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.reply(
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"rm -rf build"}`)),
		llmtest.Reply(llmtest.Text("I left build alone. [TASK_COMPLETE]")),
	)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)
	if _, err := c.Prompt(ctx, PromptRequest{Message: "clean up"}); err != nil {
		t.Fatal(err)
	}
	ap := w.typ(event.TypeApprovalRequested).Data.(event.ApprovalRequested)
	if ap.Severity != "high" && ap.Severity != "critical" {
		t.Errorf("rm -rf asked at severity %q", ap.Severity)
	}
	if _, err := c.Deny(ctx, ap.ApprovalID, "the build cache is needed"); err != nil {
		t.Fatal(err)
	}
	resolved := w.typ(event.TypeApprovalResolved).Data.(event.ApprovalResolved)
	if resolved.Decision != event.DecisionDenied || resolved.Reason != "the build cache is needed" {
		t.Errorf("resolved %+v", resolved)
	}
	action := w.until("the denied action", func(ev event.Event) bool {
		a, ok := ev.Data.(event.ToolAction)
		return ok && a.Status == event.ActionError
	}).Data.(event.ToolAction)
	if action.Detail != "denied" {
		t.Errorf("action detail %q", action.Detail)
	}
	w.finished()
	if _, err := os.Stat(filepath.Join(e.ws, "build")); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	reqs := e.turnRequests()
	if len(reqs) != 2 || !strings.Contains(toolResults(reqs[1]), "the build cache is needed") {
		t.Errorf("the model was not told why: %q", toolResults(reqs[len(reqs)-1]))
	}
}

func TestKeepOneHunkUndoTheRest(t *testing.T) {
	e := newEnv(t)
	var orig, edited []string
	for i := 1; i <= 20; i++ {
		line := "line " + string(rune('a'+i-1))
		orig = append(orig, line)
		switch i {
		case 2:
			line = "line b, improved"
		case 18:
			line = "line r, improved"
		}
		edited = append(edited, line)
	}
	original := strings.Join(orig, "\n") + "\n"
	e.write("notes.txt", original)
	args, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": strings.Join(edited, "\n") + "\n"})
	e.reply(
		llmtest.Reply(llmtest.ToolCall("write_file", string(args))),
		llmtest.Reply(llmtest.Text("Improved two lines. [TASK_COMPLETE]")),
	)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)
	if _, err := c.Prompt(ctx, PromptRequest{Message: "improve lines b and r of notes.txt"}); err != nil {
		t.Fatal(err)
	}
	if fin := w.finished(); fin.Status != event.FinishDone {
		t.Fatalf("turn %+v", fin)
	}
	ch, err := c.ListChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 1 || ch.Files[0].Path != "notes.txt" || len(ch.Files[0].Hunks) != 2 || ch.Additions != 2 || ch.Deletions != 2 {
		t.Fatalf("changes %+v", ch)
	}
	if ch.Position.Total != 2 || ch.Position.Current != 1 {
		t.Errorf("position %+v", ch.Position)
	}
	rev, err := c.ReviewNavigate(ctx, "next", "")
	if err != nil || rev.Position.Current != 2 || rev.Hunk == nil || !strings.Contains(rev.Hunk.NewText, "line r, improved") {
		t.Fatalf("navigate next: %+v, %v", rev, err)
	}
	kept, err := c.Keep(ctx, ChangeRequest{Path: "notes.txt", Hunk: 1})
	if err != nil || len(kept.Outcomes) != 1 || kept.Position.Total != 1 {
		t.Fatalf("keep hunk 1: %+v, %v", kept, err)
	}
	undone, err := c.Undo(ctx, ChangeRequest{Path: "notes.txt"})
	if err != nil || len(undone.Conflicts) != 0 || undone.Position.Total != 0 {
		t.Fatalf("undo the rest: %+v, %v", undone, err)
	}
	want := strings.Replace(original, "line b\n", "line b, improved\n", 1)
	if got := e.read("notes.txt"); got != want {
		t.Errorf("notes.txt =\n%s\nwant\n%s", got, want)
	}
	w.until("the undo's result", func(ev event.Event) bool {
		r, ok := ev.Data.(event.FileChangeResult)
		return ok && r.Action == "undo" && r.Success
	})
	if ch, err := c.ListChanges(ctx); err != nil || len(ch.Files) != 0 {
		t.Errorf("changes left: %+v, %v", ch, err)
	}
	var rerr *Error
	if _, err := c.Keep(ctx, ChangeRequest{Path: "notes.txt", All: true}); !errors.As(err, &rerr) {
		t.Errorf("path and all together: %v", err)
	}
}

func TestSteerDuringRun(t *testing.T) {
	e := newEnv(t)
	e.reply(
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"touch first.txt"}`)),
		llmtest.Reply(llmtest.Text("Noted, using tabs. [TASK_COMPLETE]")),
	)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)
	if _, err := c.Prompt(ctx, PromptRequest{Message: "set up the project"}); err != nil {
		t.Fatal(err)
	}
	ap := w.typ(event.TypeApprovalRequested).Data.(event.ApprovalRequested)
	// The turn is waiting on the approval: the message waits for its next
	// step.
	res, err := c.Steer(ctx, "use tabs, not spaces")
	if err != nil || res.Queued != "steer" {
		t.Fatalf("steer: %+v, %v", res, err)
	}
	if st, err := c.GetState(ctx); err != nil || st.PendingMessageCount != 1 || st.Queue.Steer != 1 {
		t.Fatalf("state: %+v, %v", st, err)
	}
	var rerr *Error
	if _, err := c.Prompt(ctx, PromptRequest{Message: "another"}); !errors.As(err, &rerr) || !strings.Contains(rerr.Message, "streamingBehavior") {
		t.Errorf("a plain prompt while busy: %v", err)
	}
	if _, err := c.Approve(ctx, ap.ApprovalID, ""); err != nil {
		t.Fatal(err)
	}
	steer := w.until("the steering message", func(ev event.Event) bool {
		um, ok := ev.Data.(event.UserMessage)
		return ok && um.Text == "use tabs, not spaces"
	})
	if steer.Turn != 1 {
		t.Errorf("steering recorded in turn %d, want the running turn 1", steer.Turn)
	}
	if fin := w.finished(); fin.Status != event.FinishDone || fin.Iterations != 2 {
		t.Errorf("turn %+v", fin)
	}
	reqs := e.turnRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	last := reqs[1].LastMessage()
	if last.Role != llm.RoleUser || last.Content != "use tabs, not spaces" {
		t.Errorf("the next request ends with %s %q, want the steering message", last.Role, last.Content)
	}
}

func TestAbortMidStream(t *testing.T) {
	e := newEnv(t)
	e.reply(llmtest.Reply(llmtest.Text("Let me look at the whole repository first"), llmtest.Stall()))
	c := e.start("both")
	w := watch(t, c)
	ctx := ctxT(t)
	if _, err := c.Prompt(ctx, PromptRequest{Message: "explain everything"}); err != nil {
		t.Fatal(err)
	}
	w.typ(event.TypeTextDelta)
	res, err := c.Abort(ctx)
	if err != nil || !res.Aborted {
		t.Fatalf("abort: %+v, %v", res, err)
	}
	if fin := w.finished(); fin.Status != event.FinishCanceled {
		t.Fatalf("turn %+v", fin)
	}
	// The pi stream ends the run too: the cut-off message is aborted.
	var stop string
	for {
		raw := <-c.PiEvents()
		var pe struct {
			Type    string     `json:"type"`
			Message *PiMessage `json:"message"`
		}
		if err := json.Unmarshal(raw, &pe); err != nil {
			t.Fatal(err)
		}
		if pe.Type == "message_end" && pe.Message.Role == "assistant" {
			stop = pe.Message.StopReason
		}
		if pe.Type == "agent_end" {
			break
		}
	}
	if stop != "aborted" {
		t.Errorf("assistant message ended with stopReason %q, want aborted", stop)
	}
	if st, err := c.GetState(ctx); err != nil || st.IsStreaming {
		t.Errorf("still streaming after abort: %+v, %v", st, err)
	}
}

func TestReconnectRebuildsTheTimeline(t *testing.T) {
	e := newEnv(t)
	e.write("go.mod", "module x\n")
	e.reply(
		llmtest.Reply(llmtest.Thinking("I should list the files."), llmtest.Text("Listing."), llmtest.ToolCall("run_terminal_command", `{"command":"ls"}`)),
		llmtest.Reply(llmtest.Text("There is one file, go.mod. [TASK_COMPLETE]")),
	)
	c := e.start("")
	w := watch(t, c)
	ctx := ctxT(t)
	if _, err := c.Prompt(ctx, PromptRequest{Message: "what is here?"}); err != nil {
		t.Fatal(err)
	}
	w.finished()
	live := timeline.Build(w.all)

	// Another client resumes the session and catches up page by page.
	id := c.Ready().SessionID
	c2 := e.start("", "--resume", id)
	if c2.Ready().SessionID != id {
		t.Fatalf("resumed session %s, want %s", c2.Ready().SessionID, id)
	}
	var replayed []event.Event
	var after int64
	for {
		page, err := c2.GetEvents(ctx, EventsRequest{AfterSeq: after, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		replayed = append(replayed, page.Events...)
		after = page.LastSeq
		if !page.More {
			break
		}
	}
	if len(replayed) < 8 {
		t.Fatalf("only %d events replayed", len(replayed))
	}
	if diff := cmp.Diff(live, timeline.Build(replayed)); diff != "" {
		t.Errorf("the replayed timeline differs from the live one (-live +replayed):\n%s", diff)
	}
	msgs, err := c2.GetMessages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, " ") != "user assistant toolResult assistant" {
		t.Errorf("messages %v", roles)
	}
	if text, err := c2.GetLastAssistantText(ctx); err != nil || text == nil || *text != "There is one file, go.mod." {
		t.Errorf("last text %v, %v", text, err)
	}
}

func TestEndOfInputCancelsAndRecords(t *testing.T) {
	for _, how := range []string{"eof", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			e.reply(llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"touch x.txt"}`)))
			ctx := ctxT(t)
			c, err := Start(ctx, Options{Binary: ollyBin, Env: e.environ,
				Args: []string{"--cwd", e.ws, "--base-url", e.srv.URL(), "--model", testModel, "--set", "embedding.model="}})
			if err != nil {
				t.Fatal(err)
			}
			w := watch(t, c)
			if _, err := c.Prompt(ctx, PromptRequest{Message: "make x"}); err != nil {
				t.Fatal(err)
			}
			w.typ(event.TypeApprovalRequested)
			if how == "sigterm" {
				if err := c.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				<-c.Done()
			}
			if err := c.Close(); err != nil {
				t.Fatalf("exit: %v\nstderr: %s", err, c.Stderr())
			}
			// The record shows how it ended.
			c2 := e.start("", "--resume", c.Ready().SessionID)
			page, err := c2.GetEvents(ctx, EventsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var decision, status string
			for _, ev := range page.Events {
				switch p := ev.Data.(type) {
				case event.ApprovalResolved:
					decision = p.Decision
				case event.TurnFinished:
					status = p.Status
				}
			}
			if decision != event.DecisionCanceled || status != event.FinishCanceled {
				t.Errorf("recorded approval %q and turn %q, want both canceled", decision, status)
			}
			if e.read("x.txt") != "<missing>" {
				t.Error("the canceled command ran")
			}
		})
	}
}
