package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestParseMentions(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []mention
	}{
		{"whole file", "explain @src/a.go please", []mention{{start: 8, end: 17, path: "src/a.go", explicit: true}}},
		{"line range", "fix @a.go:L10-L50.", []mention{{start: 4, end: 17, path: "a.go", from: 10, to: 50, explicit: true}}},
		{"single line", "see @a.go:7", []mention{{start: 4, end: 11, path: "a.go", from: 7, to: 7, explicit: true}}},
		{"bare word", "thanks @bob", []mention{{start: 7, end: 11, path: "bob"}}},
		{"in parentheses", "(see @x.md)", []mention{{start: 5, end: 10, path: "x.md", explicit: true}}},
		{"email is not a mention", "mail me@example.com", nil},
		{"lone at", "a @ b @", nil},
		{"bad range stays in the path", "@a.go:L9-L3", []mention{{start: 0, end: 11, path: "a.go:L9-L3", explicit: true}}},
		{"two", "@a.go and @b.go", []mention{{start: 0, end: 5, path: "a.go", explicit: true}, {start: 10, end: 15, path: "b.go", explicit: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseMentions(tt.text)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(mention{})); diff != "" {
				t.Errorf("parseMentions(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func FuzzParseMentions(f *testing.F) {
	for _, s := range []string{"@a.go:L1-L2", "x @b/c.go, @d", "@@", "(@e:L3)", "@:L1", "@a.go:L999999999999-L1", "\"@q\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last := -1
		for _, m := range parseMentions(text) {
			if m.start <= last || m.start < 0 || m.end > len(text) || m.start >= m.end || text[m.start] != '@' {
				t.Fatalf("bad span %+v in %q", m, text)
			}
			last = m.end - 1
			if m.path == "" || (m.from == 0) != (m.to == 0) || m.from > m.to || m.from < 0 {
				t.Fatalf("bad mention %+v in %q", m, text)
			}
			if !strings.HasPrefix(text[m.start+1:m.end], m.path) {
				t.Fatalf("path %q is not the mention's text %q", m.path, text[m.start:m.end])
			}
		}
	})
}

func TestAttachments(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.write("src/a.go", "package a\n\nfunc A() {}\nfunc B() {}\n")
		h.write("notes.md", "use ``` fences\n")
		h.srv.Enqueue(llmtest.Reply(llmtest.Text("A and B are empty. [TASK_COMPLETE]")))
		h.prompt("explain @src/a.go:L3-L4 and @notes.md, thanks @bob")

		users := payloads[event.UserMessage](h.live)
		if len(users) != 1 {
			t.Fatalf("user messages = %+v", users)
		}
		want := []event.Attachment{
			{Path: "src/a.go", StartLine: 3, EndLine: 4, Content: "func A() {}\nfunc B() {}\n"},
			{Path: "notes.md", Content: "use ``` fences\n"},
		}
		if diff := cmp.Diff(want, users[0].Attachments); diff != "" {
			t.Errorf("attachments (-want +got):\n%s", diff)
		}
		sent := h.chats()[0].Messages[1].Content
		wantContent := "User's selected code from src/a.go:L3-L4 (already provided — do not re-read):\n```\nfunc A() {}\nfunc B() {}\n```\n\n" +
			"Contents of notes.md (already provided — do not re-read):\n````\nuse ``` fences\n````\n\n" +
			"explain @src/a.go:L3-L4 and @notes.md, thanks @bob"
		if sent != wantContent {
			t.Errorf("user content sent:\n%s\nwant:\n%s", sent, wantContent)
		}
		if users[0].Text != "explain @src/a.go:L3-L4 and @notes.md, thanks @bob" {
			t.Errorf("user text = %q", users[0].Text)
		}
		h.checkHistory()
	})
}

// A mention that cannot be attached does not stop the prompt (issue 21:
// forgiving input): the person sees a warning saying why, the model is told
// what was not attached, and nothing outside the workspace is read.
func TestAttachmentProblemsWarn(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TOP-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		prompt string
		want   string
	}{
		{"outside the workspace", "read @" + filepath.Join(outside, "secret.txt"), "outside the workspace"},
		{"missing file", "explain @nope/missing.go", "does not exist"},
		{"directory", "look at @sub/", "is a directory"},
		{"range past the end", "see @small.txt:L5-L6", "has only 1 line"},
		{"binary", "see @bin.dat", "binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{})
			h.write("sub/x.txt", "x\n")
			h.write("small.txt", "one\n")
			h.write("bin.dat", "a\x00b")
			h.srv.Enqueue(llmtest.Reply(llmtest.Text("Noted. [TASK_COMPLETE]")))
			res := h.prompt(tt.prompt)
			if res.Status != event.FinishDone {
				t.Fatalf("the prompt did not go on: %+v", res)
			}
			warned := false
			for _, w := range payloads[event.Warning](h.live) {
				warned = warned || (w.Code == "attachment" && strings.Contains(w.Message, tt.want))
			}
			if !warned {
				t.Errorf("no attachment warning saying %q in %+v", tt.want, payloads[event.Warning](h.live))
			}
			users := payloads[event.UserMessage](h.live)
			if len(users) != 1 || len(users[0].Attachments) != 0 || !strings.Contains(users[0].Content, "Not attached") {
				t.Errorf("user message = %+v", users)
			}
			if strings.Contains(users[0].Content, "TOP-SECRET") {
				t.Error("a file outside the workspace reached the model")
			}
			checkParity(t, h)
		})
	}
}

func TestAttachmentCapped(t *testing.T) {
	h := newHarness(t, true, harnessOpt{cfg: Config{MaxAttachmentBytes: 20}})
	h.write("long.txt", "line one\nline two\nline three\n")
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("ok [TASK_COMPLETE]")))
	h.prompt("summarize @long.txt")
	att := payloads[event.UserMessage](h.live)[0].Attachments
	if len(att) != 1 || att[0].Content != "line one\nline two\n" {
		t.Fatalf("attachment = %+v", att)
	}
	mustContain(t, "user content", h.chats()[0].Messages[1].Content, "Only the first 2 lines are attached", "read_file")
}
