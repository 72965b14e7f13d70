package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// printEnv is a workspace, hermetic settings and a fake model server.
type printEnv struct {
	*testEnv
	srv *llmtest.Server
	// noRetry builds the model client without retries, so a test of a
	// server that is down does not wait 1+2+4 s.
	noRetry bool
}

func newPrintEnv(t *testing.T) *printEnv {
	t.Helper()
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"), llmtest.ContextLength(32768))
	// The agent's classification of a prompt (a request for JSON) gets a
	// general task; the scripts hold only the turns' own replies.
	srv.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"mixed","needsWrite":false,"reasoning":"scripted"}`)))
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "OLLY_BASE_URL="+srv.URL())
	return &printEnv{testEnv: e, srv: srv}
}

// script queues the model's replies to the agent's requests.
func (e *printEnv) script(rs ...llmtest.Response) { e.srv.Enqueue(rs...) }

func (e *printEnv) runWith(t *testing.T, stdin string, term io.ReadWriteCloser, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := e.factory()
	f.IO.In = strings.NewReader(stdin)
	if e.noRetry {
		f.NewProvider = func(cfg *config.Config) (llm.Provider, error) {
			return app.NewProviderWithRetry(cfg, llm.RetryPolicy{})
		}
	}
	f.OpenTerminal = func() (io.ReadWriteCloser, error) {
		if term == nil {
			return nil, os.ErrNotExist
		}
		return term, nil
	}
	code := Execute(f, append([]string{"--cwd", e.ws}, args...))
	return code, out.String(), errOut.String()
}

func decodeEvents(t *testing.T, out string) []event.Event {
	t.Helper()
	var evs []event.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev event.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not an event line: %v\n%s", err, sc.Text())
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestPrintCreatesFileAndPrintsAnswer(t *testing.T) {
	e := newPrintEnv(t)
	e.script(
		llmtest.Reply(llmtest.Text("I'll write it."), llmtest.ToolCall("write_file", `{"path":"main.go","content":"package main\n\nfunc main() {}\n"}`)),
		llmtest.Reply(llmtest.Text("Created main.go with an empty main. [TASK_COMPLETE]")),
	)
	code, out, errOut := e.runWith(t, "", nil, "-p", "add", "a", "main.go")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "Created main.go with an empty main.") || strings.Contains(out, "TASK_COMPLETE") {
		t.Errorf("stdout = %q", out)
	}
	got, err := os.ReadFile(filepath.Join(e.ws, "main.go"))
	if err != nil || string(got) != "package main\n\nfunc main() {}\n" {
		t.Errorf("main.go = %q, %v", got, err)
	}
	if strings.Contains(errOut, "▸") {
		t.Errorf("progress shown on a stderr that is not a terminal: %q", errOut)
	}
	first := e.srv.Requests()[len(e.srv.Requests())-2]
	if !strings.Contains(first.Path, "/api/chat") {
		t.Fatalf("request %s", first.Path)
	}
}

func TestPrintTaskFromStdinAndJSONOutput(t *testing.T) {
	e := newPrintEnv(t)
	e.script(llmtest.Reply(llmtest.Thinking("nothing to change"), llmtest.Text("Nothing to do. [TASK_COMPLETE]")))
	code, out, errOut := e.runWith(t, "explain the repository\n", nil, "-p", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := decodeEvents(t, out)
	if len(evs) < 4 {
		t.Fatalf("only %d events", len(evs))
	}
	var types []event.Type
	var user *event.UserMessage
	for _, ev := range evs {
		types = append(types, ev.Type())
		if u, ok := ev.Data.(event.UserMessage); ok && user == nil {
			user = &u
		}
	}
	if types[len(types)-1] != event.TypeTurnFinished || user == nil {
		t.Fatalf("event types %v", types)
	}
	if !strings.Contains(user.Text, "explain the repository") {
		t.Errorf("task from stdin lost: %q", user.Text)
	}
	if strings.Contains(out, "Nothing to do.\n") && !strings.HasPrefix(out, "{") {
		t.Error("json output carries non-JSON text")
	}
}

func TestPrintUnattendedDeniesCommandsUnlessYes(t *testing.T) {
	for _, yes := range []bool{false, true} {
		name := "no --yes"
		if yes {
			name = "--yes"
		}
		t.Run(name, func(t *testing.T) {
			e := newPrintEnv(t)
			e.script(
				llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"touch made.txt"}`)),
				llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
			)
			args := []string{"-p", "--output", "json", "run the touch command"}
			if yes {
				args = append(args, "--yes")
			}
			code, out, errOut := e.runWith(t, "", nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var resolved *event.ApprovalResolved
			for _, ev := range decodeEvents(t, out) {
				if r, ok := ev.Data.(event.ApprovalResolved); ok {
					resolved = &r
				}
			}
			if resolved == nil {
				t.Fatal("no approval was recorded")
			}
			_, statErr := os.Stat(filepath.Join(e.ws, "made.txt"))
			if yes {
				if resolved.Decision != event.DecisionApproved || !resolved.AutoApproved || statErr != nil {
					t.Errorf("--yes: %+v, file: %v", resolved, statErr)
				}
			} else {
				if resolved.Decision != event.DecisionDenied || statErr == nil {
					t.Errorf("unattended: %+v, file made: %v", resolved, statErr == nil)
				}
				// The model was told not to retry.
				last := e.srv.Requests()[len(e.srv.Requests())-1].Body
				if !strings.Contains(strings.ToLower(string(last)), "not") {
					t.Errorf("denial not passed to the model: %s", last)
				}
			}
		})
	}
}

func TestPrintCriticalNeedsAPersonEvenWithYes(t *testing.T) {
	e := newPrintEnv(t)
	e.script(
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"rm -rf ~"}`)),
		llmtest.Reply(llmtest.Text("I stopped. [TASK_COMPLETE]")),
	)
	code, out, errOut := e.runWith(t, "", nil, "-p", "--yes", "--output", "json", "clean up")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, ev := range decodeEvents(t, out) {
		if r, ok := ev.Data.(event.ApprovalResolved); ok && r.Decision != event.DecisionDenied {
			t.Fatalf("critical command resolved %+v without a person", r)
		}
	}
}

// pipeTerminal is a terminal the test types into.
type pipeTerminal struct {
	io.Reader
	out strings.Builder
}

func (p *pipeTerminal) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *pipeTerminal) Close() error                { return nil }

func TestPrintAsksAtTheTerminalAndRunsTheEditedCommand(t *testing.T) {
	e := newPrintEnv(t)
	e.script(
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"touch wrong.txt"}`)),
		llmtest.Reply(llmtest.Text("Made it. [TASK_COMPLETE]")),
	)
	term := &pipeTerminal{Reader: strings.NewReader("e\ntouch right.txt\n")}
	code, _, errOut := e.runWith(t, "", term, "-p", "run the touch command")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(term.out.String(), "olly wants to run: touch wrong.txt") {
		t.Errorf("terminal showed %q", term.out.String())
	}
	if _, err := os.Stat(filepath.Join(e.ws, "right.txt")); err != nil {
		t.Error("the edited command did not run")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "wrong.txt")); err == nil {
		t.Error("the original command ran")
	}
}

func TestPrintExitCodes(t *testing.T) {
	t.Run("max iterations", func(t *testing.T) {
		e := newPrintEnv(t)
		for i := 0; i < 3; i++ {
			e.script(llmtest.Reply(llmtest.ToolCall("list_files", `{"path":"."}`)))
		}
		code, _, errOut := e.runWith(t, "", nil, "-p", "--max-iterations", "2", "loop forever")
		if code != ExitFailure || !strings.Contains(errOut, "agent.maxIterations") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("server fails mid-turn", func(t *testing.T) {
		e := newPrintEnv(t)
		e.script(llmtest.Reply(llmtest.Text("Working"), llmtest.DropConnection()))
		code, _, errOut := e.runWith(t, "", nil, "-p", "do it")
		if code != ExitFailure || !strings.Contains(errOut, "error:") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("server down", func(t *testing.T) {
		e := newPrintEnv(t)
		e.srv.Close()
		e.noRetry = true
		code, _, errOut := e.runWith(t, "", nil, "-p", "--set", "agentMode.model=qwen3:8b", "do it")
		if code != ExitFailure || !strings.Contains(errOut, "ollama serve") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("bad output flag", func(t *testing.T) {
		e := newPrintEnv(t)
		if code, _, _ := e.runWith(t, "", nil, "-p", "--output", "xml", "x"); code != ExitUsage {
			t.Fatalf("exit %d", code)
		}
	})
	t.Run("bad max iterations", func(t *testing.T) {
		e := newPrintEnv(t)
		if code, _, errOut := e.runWith(t, "", nil, "-p", "--max-iterations", "lots", "x"); code != ExitUsage || !strings.Contains(errOut, "--max-iterations") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("picks a model and says which", func(t *testing.T) {
		e := newPrintEnv(t)
		e.script(llmtest.Reply(llmtest.Text("Hi. [TASK_COMPLETE]")))
		code, _, errOut := e.runWith(t, "", nil, "-p", "say hi")
		if code != 0 || !strings.Contains(errOut, "using qwen3:8b") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
}

// TestPrintChangesAreCheckpointed: what print mode writes is recorded in a
// checkpoint that olly changes lists and can undo.
func TestPrintChangesAreCheckpointed(t *testing.T) {
	e := newPrintEnv(t)
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.script(
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"notes.txt","content":"one\nTWO\nthree\n"}`),
			llmtest.ToolCall("write_file", `{"path":"src/new.txt","content":"fresh\n"}`)),
		llmtest.Reply(llmtest.Text("Edited notes and added src/new.txt. [TASK_COMPLETE]")),
	)
	code, out, errOut := e.runWith(t, "", nil, "-p", "--output", "json", "edit the notes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var changed *event.FilesChanged
	for _, ev := range decodeEvents(t, out) {
		if fc, ok := ev.Data.(event.FilesChanged); ok {
			changed = &fc
		}
	}
	if changed == nil || len(changed.Files) != 2 {
		t.Fatalf("files_changed = %+v", changed)
	}
	code, out, errOut = e.runWith(t, "", nil, "changes", "--json")
	if code != 0 || !strings.Contains(out, "notes.txt") || !strings.Contains(out, "src/new.txt") {
		t.Fatalf("olly changes: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = e.runWith(t, "", nil, "changes", "undo", "--all")
	if code != 0 {
		t.Fatalf("undo --all: exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "notes.txt")); string(got) != "one\ntwo\n" {
		t.Errorf("notes.txt after undo = %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "src")); !os.IsNotExist(err) {
		t.Errorf("the directory olly created is still there: %v", err)
	}
}

// TestPrintAutoDiagnosticsReachTheModel: with gopls installed, a write that
// breaks the build gets the compiler's error in its tool result, and the
// completion gate refuses to finish until it is fixed.
func TestPrintAutoDiagnosticsReachTheModel(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed: go install golang.org/x/tools/gopls@v0.23.0")
	}
	e := newPrintEnv(t)
	if err := os.WriteFile(filepath.Join(e.ws, "go.mod"), []byte("module example.com/fix\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := `package main\n\nfunc main() {\n\tvar n int = \"one\"\n\t_ = n\n}\n`
	fixed := `package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n`
	e.script(
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"main.go","content":"`+broken+`"}`)),
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"main.go","content":"`+fixed+`"}`)),
		llmtest.Reply(llmtest.Text("Fixed the type error. [TASK_COMPLETE]")),
	)
	code, _, errOut := e.runWith(t, "", nil, "-p", "--yes", "write main.go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var second string
	for _, r := range e.srv.Requests() {
		if strings.HasSuffix(r.Path, "/api/chat") {
			if second == "" && strings.Contains(string(r.Body), "Auto-diagnostics") {
				second = string(r.Body)
			}
		}
	}
	if second == "" || !strings.Contains(second, "main.go") {
		t.Fatal("no request carried the auto-diagnostics of the broken write")
	}
	if n := len(e.srv.Requests()); n < 4 {
		t.Fatalf("the gate did not send the model back to fix the error (%d requests)", n)
	}
}

// With --output json every error is also an error event on stdout, the
// ones before the turn included (issue 14: a program reading events saw
// nothing when the server was down). A failure the turn reported itself is
// not repeated. A server that stalls ends with a timeout, not a hang.
func TestPrintJSONReportsEveryError(t *testing.T) {
	errorEvents := func(t *testing.T, out string) []event.Error {
		t.Helper()
		var errs []event.Error
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var ev event.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("stdout line %q is not an event: %v", sc.Text(), err)
			}
			if p, ok := ev.Data.(event.Error); ok {
				errs = append(errs, p)
			}
		}
		return errs
	}
	t.Run("server down", func(t *testing.T) {
		e := newPrintEnv(t)
		e.srv.Close()
		e.noRetry = true
		code, out, errOut := e.runWith(t, "", nil, "-p", "--output", "json", "--set", "agentMode.model=qwen3:8b", "do it")
		errs := errorEvents(t, out)
		if code != ExitFailure || len(errs) != 1 || errs[0].Kind != "connection" || !strings.Contains(errs[0].Message, "ollama serve") || !strings.Contains(errOut, "ollama serve") {
			t.Fatalf("exit %d, events %+v, stderr %q", code, errs, errOut)
		}
	})
	t.Run("missing model", func(t *testing.T) {
		e := newPrintEnv(t)
		code, out, _ := e.runWith(t, "", nil, "-p", "--output", "json", "--model", "nope:1b", "do it")
		errs := errorEvents(t, out)
		if code == 0 || len(errs) != 1 || !strings.Contains(errs[0].Message, "nope:1b") {
			t.Fatalf("exit %d, events %+v, stdout %q", code, errs, out)
		}
	})
	t.Run("usage error", func(t *testing.T) {
		e := newPrintEnv(t)
		code, out, _ := e.runWith(t, "", nil, "-p", "--output", "json", "--max-iterations", "lots", "x")
		if errs := errorEvents(t, out); code != ExitUsage || len(errs) != 1 || errs[0].Kind != "usage" {
			t.Fatalf("exit %d, events %+v", code, errs)
		}
	})
	t.Run("failure inside the turn: reported once", func(t *testing.T) {
		e := newPrintEnv(t)
		e.script(llmtest.Reply(llmtest.Text("Working"), llmtest.DropConnection()))
		code, out, _ := e.runWith(t, "", nil, "-p", "--output", "json", "do it")
		if errs := errorEvents(t, out); code != ExitFailure || len(errs) != 1 {
			t.Fatalf("exit %d, events %+v", code, errs)
		}
	})
	t.Run("server stalls", func(t *testing.T) {
		e := newPrintEnv(t)
		e.noRetry = true
		e.script(llmtest.Reply(llmtest.Text("Working on it"), llmtest.Stall()))
		code, out, _ := e.runWith(t, "", nil, "-p", "--output", "json", "--set", "timeouts.idle=5s", "do it")
		errs := errorEvents(t, out)
		if code != ExitFailure || len(errs) != 1 || errs[0].Kind != "timeout" || !strings.Contains(errs[0].Message, "sent nothing more for 5 s") {
			t.Fatalf("exit %d, events %+v", code, errs)
		}
	})
}
