package export

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/olly-agent/olly/internal/timeline"
)

// page is the HTML page. html/template, not text/template: everything the
// model, a command or the person wrote is escaped in its context, so a
// "<script>" in a prompt or an output is shown, never run.
//
//go:embed page.html
var page string

// pageData is what page.html renders.
type pageData struct {
	Doc
	Title string
	Items []*timeline.Item
}

// HTML writes the session as one self-contained page: inline CSS, no
// scripts and no external requests (a Content-Security-Policy says so to the
// browser), every piece of text escaped; reasoning and tool groups are
// collapsible (<details>), diffs and outputs preformatted.
func HTML(w io.Writer, d Doc) error {
	t, err := template.New("page").Funcs(d.funcs()).Parse(page)
	if err != nil {
		return fmt.Errorf("export html: %w", err)
	}
	if err := t.Execute(w, pageData{Doc: d, Title: d.title(), Items: d.items()}); err != nil {
		return fmt.Errorf("export html: %w", err)
	}
	return nil
}

// diffLine is one line of a unified diff with its class (add, del, hunk or
// ctx).
type diffLine struct{ Class, Text string }

func (d Doc) funcs() template.FuncMap {
	return template.FuncMap{
		"stamp":      stamp,
		"mark":       mark,
		"attachment": attachmentName,
		"decision":   decision,
		"action":     fileAction,
		"facts":      func(it *timeline.Item) string { return strings.Join(d.facts(it), " · ") },
		"thinking":   thoughtFor,
		"approval":   func(ap *timeline.Approval) string { return approvalHead(ap) + " →" },
		"count": func(g *timeline.Group) string {
			n := len(g.Actions)
			if n == 0 {
				return ""
			}
			if n == 1 {
				return "1 action"
			}
			return fmt.Sprintf("%d actions", n)
		},
		"diffLines": func(diff string) []diffLine {
			lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
			out := make([]diffLine, len(lines))
			for i, l := range lines {
				out[i] = diffLine{Class: "ctx", Text: l}
				switch {
				case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				case strings.HasPrefix(l, "+"):
					out[i].Class = "add"
				case strings.HasPrefix(l, "-"):
					out[i].Class = "del"
				case strings.HasPrefix(l, "@@"):
					out[i].Class = "hunk"
				}
			}
			return out
		},
	}
}
