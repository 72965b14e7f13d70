package printmode

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scriptRunner is a stand-in agent: it emits a fixed turn, and when block
// is set waits for the turn to be canceled first.
type scriptRunner struct {
	block   bool
	started chan struct{} // closed when a blocking turn starts waiting
	final   string
}

func (r scriptRunner) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	emit := func(p event.Payload) { _, _ = t.Emit(context.WithoutCancel(ctx), p) }
	emit(event.TurnStarted{Mode: "agent", Model: "m"})
	emit(event.UserMessage{Text: t.Input.Text})
	emit(event.ProgressGroupStart{GroupID: "g", Title: "Writing files"})
	emit(event.ToolAction{GroupID: "g", ActionID: "a", Tool: "write_file", Status: event.ActionSuccess, Text: "Wrote a.go", Additions: 3})
	emit(event.FilesChanged{CheckpointID: "c", Status: "pending", Files: []event.ChangedFile{{Path: "a.go", Action: "created", Additions: 3}}})
	emit(event.ProgressGroupFinish{GroupID: "g"})
	status := event.FinishDone
	if r.block {
		if r.started != nil {
			close(r.started)
		}
		<-ctx.Done()
		status = event.FinishCanceled
	}
	emit(event.FinalMessage{Text: r.final})
	emit(event.TurnFinished{Status: status, Iterations: 1})
	return &session.TurnResult{Turn: t.Number, Status: status, FinalText: r.final}, nil
}

func newService(t *testing.T, r session.Runner) (*session.Service, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := session.New(session.Deps{Store: st, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Create(ctx, session.CreateOptions{Workspace: t.TempDir(), Mode: "agent", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, sess.ID
}

func TestTextOutputWithProgress(t *testing.T) {
	svc, id := newService(t, scriptRunner{final: "All done."})
	var out, errOut bytes.Buffer
	code, err := Run(context.Background(), Options{Sessions: svc, SessionID: id, Input: session.PromptInput{Text: "go"},
		Stdout: &out, Stderr: &errOut, Progress: true})
	if err != nil || code != ExitDone {
		t.Fatalf("code %d err %v", code, err)
	}
	if out.String() != "All done.\n" {
		t.Errorf("stdout = %q (only the answer belongs there)", out.String())
	}
	for _, want := range []string{"▸ Writing files", "✓ Wrote a.go", "+3", "Changed files", "a.go"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut.String())
		}
	}
}

func TestJSONOutputIsOneEventPerLine(t *testing.T) {
	svc, id := newService(t, scriptRunner{final: "ok"})
	var out, errOut bytes.Buffer
	code, err := Run(context.Background(), Options{Sessions: svc, SessionID: id, Input: session.PromptInput{Text: "go"},
		Output: OutputJSON, Stdout: &out, Stderr: &errOut, Progress: true})
	if err != nil || code != ExitDone {
		t.Fatalf("code %d err %v", code, err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 9 { // the runner's 8 and the session's title_changed
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		var ev event.Event
		if err := ev.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("json mode wrote to stderr: %q", errOut.String())
	}
}

func TestInterruptExits130AndReportsWhatWasDone(t *testing.T) {
	started := make(chan struct{})
	svc, id := newService(t, scriptRunner{block: true, started: started, final: "Wrote a.go before stopping."})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	var out, errOut bytes.Buffer
	code, err := Run(ctx, Options{Sessions: svc, SessionID: id, Input: session.PromptInput{Text: "go"}, Stdout: &out, Stderr: &errOut})
	if err != nil || code != ExitInterrupted {
		t.Fatalf("code %d err %v", code, err)
	}
	if !strings.Contains(out.String(), "Wrote a.go before stopping.") || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

// Ctrl-C before the turn has started is an interruption too (130), not a
// failure, and says nothing was done.
func TestInterruptBeforeTheTurnStarts(t *testing.T) {
	svc, id := newService(t, scriptRunner{final: "never"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code, err := Run(ctx, Options{Sessions: svc, SessionID: id, Input: session.PromptInput{Text: "go"}, Stdout: &out, Stderr: &errOut})
	if err != nil || code != ExitInterrupted {
		t.Fatalf("code %d err %v", code, err)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "before the task started") {
		t.Errorf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

func TestTerminalQuestionForms(t *testing.T) {
	tests := []struct {
		name, typed string
		req         event.ApprovalRequested
		approve     bool
		command     string
		reason      string
	}{
		{"yes", "y\n", event.ApprovalRequested{Kind: event.ApprovalCommand, Command: "make"}, true, "", ""},
		{"no with reason", "maybe\nn\nuse make test\n", event.ApprovalRequested{Kind: event.ApprovalCommand, Command: "make"}, false, "", "use make test"},
		{"edit", "e\nmake test\n", event.ApprovalRequested{Kind: event.ApprovalCommand, Command: "make"}, true, "make test", ""},
		{"edit is not offered for files", "e\ny\n", event.ApprovalRequested{Kind: event.ApprovalFileEdit, FilePath: ".env", Diff: "-a\n+b\n"}, true, "", ""},
		{"tool call", "y\n", event.ApprovalRequested{Kind: event.ApprovalTool, Tool: "mcp__gh__create_issue", Arguments: `{"title":"x"}`}, true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rw := &rwBuffer{in: strings.NewReader(tt.typed)}
			term := newTerminal(rw)
			defer term.close()
			ans, err := term.ask(context.Background(), newStyle(false), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Approve != tt.approve || ans.Command != tt.command || ans.Reason != tt.reason {
				t.Fatalf("answer %+v", ans)
			}
			if tt.req.Tool != "" && !strings.Contains(rw.out.String(), "olly wants to call: "+tt.req.Tool) {
				t.Errorf("the question does not name the tool:\n%s", rw.out.String())
			}
			// Drain the reader so its goroutine ends.
			for range term.lines {
			}
		})
	}
}

type rwBuffer struct {
	in  *strings.Reader
	out bytes.Buffer
}

func (b *rwBuffer) Read(p []byte) (int, error)  { return b.in.Read(p) }
func (b *rwBuffer) Write(p []byte) (int, error) { return b.out.Write(p) }
