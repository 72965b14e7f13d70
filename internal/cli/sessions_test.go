package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// sessEnv is print mode's environment with the database at a known path,
// so tests can put sessions in it and look at what commands did.
type sessEnv struct {
	*printEnv
	db string
}

func newSessEnv(t *testing.T) *sessEnv {
	t.Helper()
	e := &sessEnv{printEnv: newPrintEnv(t), db: filepath.Join(t.TempDir(), "olly.db")}
	e.environ = append(e.environ, "OLLY_DB="+e.db)
	return e
}

// open opens the database beside the commands (several Stores may share it).
func (e *sessEnv) open(t *testing.T) (*store.Store, *session.Service) {
	t.Helper()
	st, err := store.Open(context.Background(), e.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := session.New(session.Deps{Store: st, Runner: scriptedTurns{}})
	if err != nil {
		t.Fatal(err)
	}
	return st, svc
}

// seed stores a session in workspace ws with one answered turn per prompt.
func (e *sessEnv) seed(t *testing.T, ws string, prompts ...string) *store.Session {
	t.Helper()
	ctx := context.Background()
	_, svc := e.open(t)
	sess, err := svc.Create(ctx, session.CreateOptions{Workspace: ws, Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts {
		if _, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: p}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.Open(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// scriptedTurns answers every prompt the way the agent shapes a turn, with
// one tool group.
type scriptedTurns struct{}

func (scriptedTurns) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	// Group and action ids are unique in a session, as the agent makes them.
	g, a := fmt.Sprintf("g%d", t.Number), fmt.Sprintf("a%d", t.Number)
	for _, p := range []event.Payload{
		event.TurnStarted{Mode: "agent", Model: "qwen3:8b"},
		event.UserMessage{Text: t.Input.Text},
		event.ThinkingBlock{Iteration: 1, Content: "Look at the files first.\nThen answer.", DurationMs: 1200},
		event.AssistantMessage{Iteration: 1, Text: "Reading.", Content: "Reading."},
		event.ProgressGroupStart{GroupID: g, Title: "Reading files"},
		event.ToolAction{GroupID: g, ActionID: a, Tool: "read_file", Status: event.ActionSuccess, Text: "Read main.go"},
		event.ProgressGroupFinish{GroupID: g},
		event.FinalMessage{Text: "Answered: " + t.Input.Text},
		event.TurnFinished{Status: event.FinishDone, Iterations: 1},
	} {
		if _, err := t.Emit(ctx, p); err != nil {
			return nil, err
		}
	}
	return &session.TurnResult{Turn: t.Number, Status: event.FinishDone}, nil
}

// ok runs olly and fails the test on a non-zero exit.
func (e *sessEnv) ok(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := e.runWith(t, "", nil, args...)
	if code != 0 {
		t.Fatalf("olly %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

func listJSON(t *testing.T, out string) []sessionListJSON {
	t.Helper()
	var rows []sessionListJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	return rows
}

// TestSessionsHelperProcess is not a test: TestSessionsList runs it as a
// child process that marks a session generating and exits, as an olly that
// crashed mid-turn leaves it.
func TestSessionsHelperProcess(t *testing.T) {
	db, id := os.Getenv("OLLY_TEST_HELPER_DB"), os.Getenv("OLLY_TEST_HELPER_SESSION")
	if db == "" {
		t.Skip("helper process only")
	}
	st, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetStatus(context.Background(), id, store.StatusGenerating); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // no Close: a crash does not close the store either
}

func TestSessionsList(t *testing.T) {
	e := newSessEnv(t)
	// A print-mode session that changed a file: pending changes.
	e.script(
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"notes.txt","content":"one\ntwo\nthree\n"}`)),
		llmtest.Reply(llmtest.Text("Wrote notes.txt. [TASK_COMPLETE]")),
	)
	e.ok(t, "-p", "write the notes")
	crashed := e.seed(t, e.ws, "a session whose olly crashed")
	elsewhere := e.seed(t, t.TempDir(), "another workspace")

	child := exec.Command(os.Args[0], "-test.run=^TestSessionsHelperProcess$")
	child.Env = append(os.Environ(), "OLLY_TEST_HELPER_DB="+e.db, "OLLY_TEST_HELPER_SESSION="+crashed.ID)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}

	out, _ := e.ok(t, "sessions", "list", "--json")
	rows := listJSON(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d sessions listed for this workspace, want 2: %s", len(rows), out)
	}
	byTitle := map[string]sessionListJSON{}
	for _, r := range rows {
		byTitle[r.Title] = r
	}
	if r := byTitle["a session whose olly crashed"]; r.Status != store.StatusInterrupted || r.Messages != 2 {
		t.Errorf("crashed session: status %s, %d messages; want interrupted, 2", r.Status, r.Messages)
	}
	if r := byTitle["write the notes"]; r.Pending == nil || r.Pending.Additions != 3 || r.Pending.Deletions != 0 || r.Messages != 2 {
		t.Errorf("print session: pending %+v, %d messages", r.Pending, r.Messages)
	}

	table, _ := e.ok(t, "sessions", "list")
	for _, want := range []string{"ID", "STATUS", "CHANGES", "interrupted", "+3 −0", "write the notes", "just now"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, elsewhere.ID) {
		t.Error("another workspace's session listed without --all")
	}
	all, _ := e.ok(t, "sessions", "list", "--all")
	if !strings.Contains(all, elsewhere.ID) || !strings.Contains(all, "WORKSPACE") {
		t.Errorf("--all:\n%s", all)
	}
	// `olly sessions` alone lists too.
	if bare, _ := e.ok(t, "sessions"); !strings.Contains(bare, crashed.ID) {
		t.Errorf("olly sessions:\n%s", bare)
	}
	_, errOut := e.ok(t, "--cwd", t.TempDir(), "sessions", "list")
	if !strings.Contains(errOut, "No sessions in") {
		t.Errorf("empty workspace: %q", errOut)
	}
}

func TestSessionsShowAndExport(t *testing.T) {
	e := newSessEnv(t)
	sess := e.seed(t, e.ws, "explain <script>alert(1)</script> main.go")
	out, _ := e.ok(t, "sessions", "show", sess.ID[:12])
	for _, want := range []string{"❯ You · turn 1 · seq 2", "explain <script>", "∴ thought for 1.2 s: Look at the files first.",
		"▸ Reading files", "✓ Read main.go", "Answered: explain"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Then answer.") {
		t.Error("thinking not collapsed to one line")
	}
	events, _ := e.ok(t, "sessions", "show", sess.ID, "--events")
	evs := decodeEvents(t, events)
	if len(evs) != 10 || evs[0].Type() != event.TypeTurnStarted || evs[len(evs)-1].Type() != event.TypeTurnFinished {
		t.Errorf("--events: %d events", len(evs))
	}
	js, _ := e.ok(t, "sessions", "show", sess.ID, "--json")
	var shown sessionShowJSON
	if err := json.Unmarshal([]byte(js), &shown); err != nil || shown.Session.ID != sess.ID || len(shown.Timeline.Items) != 2 {
		t.Errorf("--json: %v\n%s", err, js)
	}

	dir := t.TempDir()
	for _, f := range []struct{ file, format, want string }{
		{"s.md", "", "## You"},
		{"s.html", "", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"s.jsonl", "", `"type":"user_message"`},
		{"s.txt", "html", "<!DOCTYPE html>"},
	} {
		args := []string{"sessions", "export", sess.ID, "-o", filepath.Join(dir, f.file)}
		if f.format != "" {
			args = append(args, "--format", f.format)
		}
		e.ok(t, args...)
		b, err := os.ReadFile(filepath.Join(dir, f.file))
		if err != nil || !strings.Contains(string(b), f.want) {
			t.Errorf("%s: %v, lacks %q", f.file, err, f.want)
		}
		if strings.Contains(string(b), "<script>") && strings.HasSuffix(f.file, "html") {
			t.Errorf("%s carries a live <script>", f.file)
		}
	}
	md, _ := e.ok(t, "sessions", "export", sess.ID)
	if !strings.HasPrefix(md, "# explain") {
		t.Errorf("export to stdout:\n%s", md)
	}
	if code, _, errOut := e.runWith(t, "", nil, "sessions", "export", sess.ID, "--format", "pdf"); code != ExitUsage || !strings.Contains(errOut, "md, html or jsonl") {
		t.Errorf("bad format: exit %d, %q", code, errOut)
	}
	if code, _, errOut := e.runWith(t, "", nil, "sessions", "show", "ZZZZ9999"); code != ExitFailure || !strings.Contains(errOut, "no session") {
		t.Errorf("missing session: exit %d, %q", code, errOut)
	}
}

func TestSessionsSearch(t *testing.T) {
	e := newSessEnv(t)
	e.srv.AddModel("nomic-embed-text", llmtest.Caps("embedding"))
	e.srv.SetEmbedder(llmtest.HashEmbedder(64))
	db := e.seed(t, e.ws, "the sqlite schema migration fails", "add an index to the sqlite schema")
	net := e.seed(t, e.ws, "fix the http timeout in the network client")

	out, errOut := e.ok(t, "sessions", "search", "--json", "sqlite", "schema", "storage")
	var res store.SearchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.WordsOnly || len(res.Sessions) == 0 || res.Sessions[0].Session.ID != db.ID {
		t.Fatalf("by meaning: %+v (database session %s, network %s)", res, db.ID, net.ID)
	}
	if !strings.Contains(errOut, "Embedded messages for search by meaning (nomic-embed-text)") {
		t.Errorf("no progress line on stderr: %q", errOut)
	}

	// No embedding model: words only, and said so.
	out, errOut = e.ok(t, "--set", "embedding.model=", "sessions", "search", "sqlite", "schema")
	if !strings.Contains(errOut, "searched by words only: no embedding model is configured") {
		t.Errorf("stderr %q", errOut)
	}
	if !strings.Contains(out, db.ID) || !strings.Contains(out, "«sqlite» «schema»") || strings.Contains(out, net.ID) {
		t.Errorf("words-only results:\n%s", out)
	}
	out, _ = e.ok(t, "--set", "embedding.model=", "sessions", "search", "--json", "sqlite", "storage")
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.WordsOnly || len(res.Sessions) != 0 {
		t.Errorf("words only, no match: %+v, %v", res, err)
	}
	// A model that is not installed: said once, words still work.
	_, errOut = e.ok(t, "--set", "embedding.model=missing-embed", "sessions", "search", "sqlite")
	if strings.Count(errOut, "ollama pull missing-embed") != 1 {
		t.Errorf("stderr %q", errOut)
	}
	// --words is quiet about it.
	_, errOut = e.ok(t, "sessions", "search", "--words", "sqlite")
	if errOut != "" {
		t.Errorf("--words stderr %q", errOut)
	}
	_, errOut = e.ok(t, "sessions", "search", "--words", "nothing", "matches", "this")
	if !strings.Contains(errOut, "No session matches") {
		t.Errorf("no match: %q", errOut)
	}
}

func TestSessionsDelete(t *testing.T) {
	e := newSessEnv(t)
	a := e.seed(t, e.ws, "first")
	b := e.seed(t, e.ws, "second")
	st, svc := e.open(t)
	ctx := context.Background()

	// No terminal, no --yes: refused, nothing deleted.
	code, _, errOut := e.runWith(t, "", nil, "sessions", "delete", a.ID)
	if code != ExitUsage || !strings.Contains(errOut, "--yes") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := st.Session(ctx, a.ID); err != nil {
		t.Fatalf("deleted without confirmation: %v", err)
	}
	// At a terminal: asks; "n" keeps it, "y" deletes.
	for _, answer := range []string{"n\n", "y\n"} {
		f, out, errOut := e.factory()
		f.IO.In, f.IO.StdinTTY = strings.NewReader(answer), true
		if code := Execute(f, []string{"--cwd", e.ws, "sessions", "delete", a.ID}); code != 0 {
			t.Fatalf("answer %q: exit %d: %s", answer, code, errOut)
		}
		_, err := st.Session(ctx, a.ID)
		if answer == "n\n" && (err != nil || !strings.Contains(errOut.String(), "Nothing was deleted")) {
			t.Errorf("answered n: %v, %q", err, errOut)
		}
		if answer == "y\n" && (err == nil || !strings.Contains(out.String(), "deleted "+a.ID)) {
			t.Errorf("answered y: still there (%v), %q", err, out)
		}
	}
	// Generating in a live process (this test's): refused.
	if err := st.SetStatus(ctx, b.ID, store.StatusGenerating); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = e.runWith(t, "", nil, "sessions", "delete", "--yes", b.ID)
	if code != ExitFailure || !strings.Contains(errOut, "is generating") {
		t.Fatalf("delete generating: exit %d: %s", code, errOut)
	}
	if _, err := svc.Open(ctx, b.ID); err != nil {
		t.Fatal("a generating session was deleted")
	}
	st.SetStatus(ctx, b.ID, store.StatusIdle)
	out, _ := e.ok(t, "sessions", "delete", "--yes", "--json", b.ID)
	if !strings.Contains(out, `"deleted": true`) {
		t.Errorf("--json: %s", out)
	}
	if code, _, _ := e.runWith(t, "", nil, "sessions", "delete", "--yes", "ZZZZZZZZ"); code != ExitFailure {
		t.Errorf("deleting a missing session: exit %d", code)
	}
}

func TestSessionsRenameBranchForkTree(t *testing.T) {
	e := newSessEnv(t)
	sess := e.seed(t, e.ws, "one", "two", "three")
	_, svc := e.open(t)
	ctx := context.Background()

	out, _ := e.ok(t, "sessions", "rename", sess.ID, "Counting", "to", "three")
	if !strings.Contains(out, `"Counting to three"`) {
		t.Errorf("rename: %s", out)
	}
	evs, _ := svc.History(ctx, sess.ID)
	if tc, ok := evs[len(evs)-1].Data.(event.TitleChanged); !ok || tc.Title != "Counting to three" {
		t.Errorf("no title_changed event at the end: %+v", evs[len(evs)-1])
	}
	if show, _ := e.ok(t, "sessions", "show", sess.ID); !strings.HasPrefix(show, "Counting to three\n") {
		t.Errorf("show after rename:\n%s", show)
	}

	tree, _ := e.ok(t, "sessions", "tree", sess.ID)
	two := seqOf(t, tree, "two")
	out, _ = e.ok(t, "sessions", "branch", sess.ID, "--at", two)
	if !strings.Contains(out, "just before prompt "+two) {
		t.Errorf("branch: %s", out)
	}
	if _, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: "two again"}); err != nil {
		t.Fatal(err)
	}
	tree, _ = e.ok(t, "sessions", "tree", sess.ID)
	for _, want := range []string{"* #2 one", "├─ #", " two\n", "│  └─ #", " three\n", "└─ #", " two again  ← current"} {
		if !strings.Contains(tree, want) {
			t.Errorf("tree lacks %q:\n%s", want, tree)
		}
	}
	if code, _, errOut := e.runWith(t, "", nil, "sessions", "branch", sess.ID, "--at", "3"); code != ExitFailure || !strings.Contains(errOut, "not a prompt") {
		t.Errorf("branch at a non-prompt: exit %d: %s", code, errOut)
	}
	if code, _, _ := e.runWith(t, "", nil, "sessions", "branch", sess.ID); code != ExitUsage {
		t.Errorf("branch without --at: exit %d", code)
	}

	out, _ = e.ok(t, "sessions", "fork", sess.ID, "--at", two, "--json")
	var fork forkJSON
	if err := json.Unmarshal([]byte(out), &fork); err != nil || fork.Session.ParentSessionID != sess.ID || fork.BranchPoint.Prompt != "two" {
		t.Fatalf("fork: %v\n%s", err, out)
	}
	forked, _ := svc.History(ctx, fork.Session.ID)
	var prompts []string
	for _, ev := range forked {
		if um, ok := ev.Data.(event.UserMessage); ok {
			prompts = append(prompts, um.Text)
		}
	}
	if strings.Join(prompts, "|") != "one" {
		t.Errorf("fork holds prompts %v, want only the one before the fork point", prompts)
	}
	list, _ := e.ok(t, "sessions", "list", "--json")
	if len(listJSON(t, list)) != 2 {
		t.Errorf("after fork: %s", list)
	}
}

// seqOf finds the seq of a prompt in `olly sessions tree` output.
func seqOf(t *testing.T, tree, prompt string) string {
	t.Helper()
	for _, l := range strings.Split(tree, "\n") {
		if i := strings.Index(l, "#"); i >= 0 && strings.HasSuffix(strings.TrimSuffix(l, "  ← current"), " "+prompt) {
			return strings.Fields(l[i+1:])[0]
		}
	}
	t.Fatalf("no prompt %q in:\n%s", prompt, tree)
	return ""
}

func TestSessionsHistory(t *testing.T) {
	e := newSessEnv(t)
	e.seed(t, e.ws, "fix the parser", "fix the parser", "add a parser test")
	e.seed(t, t.TempDir(), "elsewhere parser")
	out, _ := e.ok(t, "sessions", "history", "--json")
	var prompts []store.Prompt
	if err := json.Unmarshal([]byte(out), &prompts); err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 2 || prompts[0].Text != "add a parser test" {
		t.Errorf("history: %+v", prompts)
	}
	out, _ = e.ok(t, "sessions", "history", "--all", "--search", "pars")
	if strings.Count(out, "parser") != 3 {
		t.Errorf("--all --search:\n%s", out)
	}
}
