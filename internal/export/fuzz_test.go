package export

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

// pageTags are the elements page.html writes; nothing else may appear.
var pageTags = map[string]bool{
	"!doctype": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"header": true, "h1": true, "dl": true, "dt": true, "dd": true, "code": true, "main": true, "section": true,
	"div": true, "span": true, "details": true, "summary": true, "pre": true, "ul": true, "li": true, "p": true,
	"strong": true, "footer": true,
}

var tagRE = regexp.MustCompile(`<\/?([a-zA-Z!][a-zA-Z0-9]*)`)

// FuzzHTMLEscapes: whatever the person, the model or a command wrote, the
// page holds only its own elements: no text can open a tag.
func FuzzHTMLEscapes(f *testing.F) {
	for _, s := range []string{"<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "</pre><b>", "&lt;", "\x00<", "<<script>", "<!--", "]]>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		evs := []event.Event{
			{Session: "s", Seq: 1, Turn: 1, Data: event.TurnStarted{Mode: event.Mode(s), Model: s}},
			{Session: "s", Seq: 2, Turn: 1, Data: event.UserMessage{Text: s, Attachments: []event.Attachment{{Path: s}}}},
			{Session: "s", Seq: 3, Turn: 1, Data: event.TitleChanged{Title: s}},
			{Session: "s", Seq: 4, Turn: 1, Data: event.ThinkingBlock{Iteration: 1, Content: s}},
			{Session: "s", Seq: 5, Turn: 1, Data: event.AssistantMessage{Iteration: 1, Text: s}},
			{Session: "s", Seq: 6, Turn: 1, Data: event.ProgressGroupStart{GroupID: "g", Title: s, Detail: s}},
			{Session: "s", Seq: 7, Turn: 1, Data: event.ToolAction{GroupID: "g", ActionID: "a", Status: s, Text: s, Detail: s, Output: s}},
			{Session: "s", Seq: 8, Turn: 1, Data: event.ApprovalRequested{ApprovalID: "p", ActionID: "a", Kind: s, Command: s, Diff: s, Reason: s, Severity: s}},
			{Session: "s", Seq: 9, Turn: 1, Data: event.ApprovalResolved{ApprovalID: "p", Decision: s, Command: s + "x", Reason: s}},
			{Session: "s", Seq: 10, Turn: 1, Data: event.FilesChanged{CheckpointID: "c", Status: s, Files: []event.ChangedFile{{Path: s, Action: s, Additions: 1}}}},
			{Session: "s", Seq: 11, Turn: 1, Data: event.Warning{Message: s}},
			{Session: "s", Seq: 12, Turn: 1, Data: event.FinalMessage{Text: s}},
			{Session: "s", Seq: 13, Turn: 1, Data: event.TurnFinished{Status: s, Error: s}},
		}
		var b bytes.Buffer
		if err := HTML(&b, Doc{Timeline: timeline.Build(evs)}); err != nil {
			t.Fatal(err)
		}
		for _, m := range tagRE.FindAllStringSubmatch(b.String(), -1) {
			if !pageTags[strings.ToLower(m[1])] {
				t.Fatalf("input %q made a <%s> element", s, m[1])
			}
		}
		// The Markdown transcript carries the model's Markdown as it is (no
		// property about tags holds there); the property checked is that
		// no input makes the renderer fail or panic.
		var md bytes.Buffer
		if err := Markdown(&md, Doc{Timeline: timeline.Build(evs)}); err != nil {
			t.Fatal(err)
		}
	})
}
