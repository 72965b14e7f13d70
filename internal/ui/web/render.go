package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

//go:embed templates/*.html
var templateFS embed.FS

// renderer turns timeline items into HTML fragments. The page puts them in
// place as they are: every decision about what a turn shows is made by
// internal/timeline, every byte of model text passes markdown's sanitiser,
// and everything else is escaped by html/template.
type itemRenderer struct {
	md   *markdown
	tmpl *template.Template
}

func newItemRenderer() (*itemRenderer, error) {
	md := newMarkdown()
	funcs := template.FuncMap{
		// Sanitised by bluemonday in Render: the one place HTML from the
		// model gets in.
		"md":        func(s string) template.HTML { return template.HTML(md.Render(s)) }, //nolint:gosec // sanitised
		"secs":      func(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) },
		"pct":       func(a, b int) string { return fmt.Sprintf("%d%%", a*100/max(b, 1)) },
		"rows":      func(s string) int { return min(max(strings.Count(s, "\n")+1, 1), 12) },
		"icon":      actionIcon,
		"diffLines": diffLines,
		"splitDiff": splitDiff,
	}
	t, err := template.New("items").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse the page templates: %w", err)
	}
	return &itemRenderer{md: md, tmpl: t}, nil
}

// Item renders one timeline item.
func (r *itemRenderer) Item(it *timeline.Item) (string, error) {
	var buf bytes.Buffer
	if err := r.tmpl.ExecuteTemplate(&buf, "item", it); err != nil {
		return "", fmt.Errorf("web: render a %s item of turn %d: %w", it.Kind, it.Turn, err)
	}
	return buf.String(), nil
}

func actionIcon(status string) string {
	switch status {
	case event.ActionSuccess:
		return "✓"
	case event.ActionError:
		return "✗"
	case event.ActionRunning:
		return "…"
	}
	return "·"
}

// diffLine is one line of a unified diff with its class.
type diffLine struct{ Class, Text string }

func diffLines(diff string) []diffLine {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	out := make([]diffLine, 0, len(lines))
	for _, l := range lines {
		c := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			c = "hdr"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		out = append(out, diffLine{Class: c, Text: l})
	}
	return out
}
