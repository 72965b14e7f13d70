package web

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

func TestRenderItem(t *testing.T) {
	r, err := newItemRenderer()
	if err != nil {
		t.Fatal(err)
	}
	command := func(sb *event.CommandSandbox, decision string) *timeline.Item {
		return &timeline.Item{Kind: timeline.KindAssistant, Turn: 1, Status: "running", Blocks: []*timeline.Block{{
			Kind: timeline.BlockGroup, Group: &timeline.Group{ID: "g1", Title: "Running commands", Actions: []*timeline.Action{{
				ToolAction: event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "run_terminal_command", Status: event.ActionPending, Text: "Run `rm -rf build`"},
				Approval: &timeline.Approval{Decision: decision, ApprovedCommand: "rm -r build", ApprovalRequested: event.ApprovalRequested{
					ApprovalID: "ap1", Kind: event.ApprovalCommand, Command: "rm -rf build </textarea><script>x()</script>", Severity: "high",
					Reason: "Recursively deletes build", Rule: "delete-recursive", Cwd: ".", Sandbox: sb}},
			}}}}}}
	}
	tests := []struct {
		name      string
		item      *timeline.Item
		want      []string
		forbidden []string
	}{
		{"user prompt is text", &timeline.Item{Kind: timeline.KindUser, Turn: 1, Seq: 3, Text: "<b>hi</b> @x"},
			[]string{"&lt;b&gt;hi&lt;/b&gt; @x", `data-entry="3"`}, []string{"<b>"}},
		{"markdown with code, script dropped", &timeline.Item{Kind: timeline.KindAssistant, Turn: 1, Blocks: []*timeline.Block{
			{Kind: timeline.BlockText, Text: "**bold** <script>alert(1)</script> [x](javascript:alert(1))\n\n```go\nfunc main() {}\n```\n"}}},
			[]string{"<strong>bold</strong>", `class="chroma"`, `<span class="kd">func</span>`}, []string{"<script", "javascript:"}},
		{"pending command: editable, escaped, sandboxed", command(&event.CommandSandbox{Policy: event.SandboxWorkspaceWrite, Active: true, Mechanism: "landlock"}, ""),
			[]string{`<textarea class="cmd" data-edit="ap1"`, "&lt;/textarea&gt;&lt;script&gt;", "rule: delete-recursive", "runs in the landlock sandbox: workspace-write, no network", `data-cmd="approve"`},
			[]string{"<script>"}},
		{"escalation", command(&event.CommandSandbox{Policy: event.SandboxUnsandboxed, Escalation: "needs the network"}, ""),
			[]string{"outside the sandbox", "needs the network"}, nil},
		{"no sandbox", command(&event.CommandSandbox{Policy: event.SandboxWorkspaceWrite}, ""),
			[]string{"no sandbox on this machine"}, nil},
		{"todo list, escaped", &timeline.Item{Kind: timeline.KindAssistant, Turn: 1, Blocks: []*timeline.Block{{Kind: timeline.BlockTodos, Todos: []event.Todo{
			{ID: "1", Content: "Add <b>flag</b>", Status: event.TodoCompleted}, {ID: "2", Content: "Docs", Status: event.TodoInProgress}, {ID: "3", Content: "Tests", Status: event.TodoPending}}}}},
			[]string{`class="todos"`, `t-completed"><span class="box">☑</span> Add &lt;b&gt;flag&lt;/b&gt;`, `t-in_progress"><span class="box">◐</span> Docs`, `t-pending"><span class="box">☐</span> Tests`}, []string{"<b>flag"}},
		{"file edit: unified and side by side, escaped", &timeline.Item{Kind: timeline.KindAssistant, Turn: 1, Blocks: []*timeline.Block{{
			Kind: timeline.BlockGroup, Group: &timeline.Group{ID: "g1", Title: "Editing", Actions: []*timeline.Action{{
				ToolAction: event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "write_file", Status: event.ActionPending, Text: "Edit .env"},
				Approval: &timeline.Approval{ApprovalRequested: event.ApprovalRequested{ApprovalID: "ap2", Kind: event.ApprovalFileEdit, FilePath: ".env",
					Severity: "medium", Reason: "sensitive file", Diff: "--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n A=1\n-B=<old>\n+B=<new>\n"}},
			}}}}}},
			[]string{`<pre class="diff unified">`, `<span class="del">-B=&lt;old&gt;</span>`, `<table class="diff split">`,
				`<tr><td class="ln">2</td><td class="del">B=&lt;old&gt;</td><td class="ln">2</td><td class="add">B=&lt;new&gt;</td></tr>`,
				`<tr class="shunk"><td colspan="4">@@ -1,2 &#43;1,2 @@</td></tr>`},
			[]string{"<old>", "<new>"}},
		{"a model request being retried, escaped", &timeline.Item{Kind: timeline.KindAssistant, Turn: 1, Status: "running",
			Retry: "retrying in 2s (attempt 1/3): <connection refused>"},
			[]string{`<div class="retry">↻ retrying in 2s (attempt 1/3): &lt;connection refused&gt;</div>`}, []string{"<connection"}},
		{"answered: the edited command, no buttons", command(nil, event.DecisionApproved),
			[]string{`<pre class="cmd">rm -r build</pre>`, "d-approved"}, []string{`data-cmd="approve"`, "<textarea"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			html, err := r.Item(tc.item)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("missing %q in:\n%s", w, html)
				}
			}
			for _, f := range tc.forbidden {
				if strings.Contains(html, f) {
					t.Errorf("has %q:\n%s", f, html)
				}
			}
		})
	}
}

// unsafe returns what must never come out of model text — a script,
// frame, object, form, image or style element, an event handler or style
// attribute, a javascript: link — read from the HTML's tags (the words
// themselves may appear as text).
func unsafe(out string) string {
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			switch string(name) {
			case "script", "iframe", "object", "embed", "style", "form", "input", "img", "link", "meta", "base":
				return "<" + string(name) + ">"
			}
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				key, val := string(k), strings.ToLower(strings.TrimSpace(string(v)))
				if strings.HasPrefix(key, "on") || key == "style" ||
					((key == "href" || key == "src") && strings.HasPrefix(strings.Join(strings.Fields(val), ""), "javascript:")) {
					return key + "=" + string(v)
				}
			}
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"**x**", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[a](javascript:alert(1))",
		"```html\n<script>x</script>\n```", "<div style=\"x\">y</div>", "<a href=\"x\" onclick=\"y\">z</a>", "`<b>`",
		"[x]( JaVaScRiPt:alert(1))", "<https://example.com/?a=<b>>"} {
		f.Add(s)
	}
	md := newMarkdown()
	f.Fuzz(func(t *testing.T, s string) {
		out := md.Render(s)
		if m := unsafe(out); m != "" {
			t.Fatalf("Render(%q) kept %q:\n%s", s, m, out)
		}
	})
}
