package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/olly-agent/olly/internal/timeline"
)

// Markdown writes the session as a readable Markdown transcript: a header
// with the session's facts, then each prompt and the one assistant message
// answering it — its text, reasoning (collapsed in <details>), tool groups
// with their actions, approvals and output, changed files and final
// message.
func Markdown(w io.Writer, d Doc) error {
	bw := bufio.NewWriter(w)
	m := &mdWriter{w: bw, d: d}
	m.header()
	for _, it := range d.items() {
		if it.Kind == timeline.KindUser {
			m.user(it)
		} else {
			m.assistant(it)
		}
	}
	return bw.Flush()
}

type mdWriter struct {
	w *bufio.Writer
	d Doc
}

func (m *mdWriter) line(format string, args ...any) {
	fmt.Fprintf(m.w, format, args...)
	m.w.WriteByte('\n')
}

func (m *mdWriter) header() {
	m.line("# %s", oneLine(m.d.title()))
	m.line("")
	s := m.d.Session
	if s == nil {
		return
	}
	m.line("| | |")
	m.line("|---|---|")
	m.line("| session | %s |", code(s.ID))
	m.line("| workspace | %s |", code(s.Workspace))
	if s.Model != "" {
		m.line("| model | %s |", code(s.Model))
	}
	m.line("| created | %s |", stamp(s.CreatedAt))
	m.line("| updated | %s |", stamp(s.UpdatedAt))
	if s.ParentSessionID != "" {
		m.line("| forked from | %s after seq %d |", code(s.ParentSessionID), s.ForkedFromSeq)
	}
	m.line("")
}

func (m *mdWriter) user(it *timeline.Item) {
	m.line("## You")
	m.line("")
	m.line("<sub>turn %d · seq %d</sub>", it.Turn, it.Seq)
	m.line("")
	m.line("%s", strings.TrimSpace(it.Text))
	m.line("")
	if len(it.Attachments) > 0 {
		names := make([]string, len(it.Attachments))
		for i, a := range it.Attachments {
			names[i] = code(attachmentName(a))
		}
		m.line("Attached: %s", strings.Join(names, ", "))
		m.line("")
	}
}

func (m *mdWriter) assistant(it *timeline.Item) {
	m.line("## olly")
	m.line("")
	m.line("<sub>%s</sub>", strings.Join(m.d.facts(it), " · "))
	m.line("")
	for _, b := range it.Blocks {
		m.block(b)
	}
	if it.Error != "" {
		m.line("> **Error:** %s", oneLine(it.Error))
		m.line("")
	}
}

func (m *mdWriter) block(b *timeline.Block) {
	switch b.Kind {
	case timeline.BlockThinking:
		m.line("<details><summary>%s</summary>", thoughtFor(b))
		m.line("")
		m.line("%s", quote(b.Text))
		m.line("")
		m.line("</details>")
	case timeline.BlockText, timeline.BlockFinal:
		m.line("%s", strings.TrimSpace(b.Text))
	case timeline.BlockGroup:
		m.group(b.Group, "")
	case timeline.BlockFiles:
		m.files(b.Files)
	case timeline.BlockNotice:
		m.line("> **%s:** %s", noticeLabel(b.Level), oneLine(b.Text))
	default:
		return
	}
	m.line("")
}

func (m *mdWriter) group(g *timeline.Group, indent string) {
	m.line("%s**%s**", indent, oneLine(g.Title))
	if g.Detail != "" {
		m.line("%s%s", indent, oneLine(g.Detail))
	}
	m.line("")
	for _, t := range g.Thinking {
		m.line("%s- *thinking:* %s", indent, oneLine(firstLine(t, 200)))
	}
	for _, a := range g.Actions {
		m.action(a, indent)
	}
	for _, c := range g.Children {
		m.line("")
		m.group(c, indent+"  ")
	}
}

func (m *mdWriter) action(a *timeline.Action, indent string) {
	line := fmt.Sprintf("%s- %s %s", indent, mark(a.Status), oneLine(a.Text))
	if a.Detail != "" {
		line += " — " + oneLine(a.Detail)
	}
	if s := stats(a.Additions, a.Deletions); s != "" {
		line += " " + s
	}
	m.line("%s", line)
	sub := indent + "  "
	if ap := a.Approval; ap != nil {
		m.line("%s- %s", sub, oneLine(approvalLine(ap)))
		if ap.Diff != "" {
			m.fenced(sub, "diff", ap.Diff)
		}
	}
	if a.Output != "" {
		m.fenced(sub, "", a.Output)
	}
}

func (m *mdWriter) files(f *timeline.Files) {
	m.line("**Files changed** (%s)", f.Status)
	m.line("")
	for _, c := range f.Files {
		line := fmt.Sprintf("- %s %s", fileAction(c), code(c.Path))
		if s := stats(c.Additions, c.Deletions); s != "" {
			line += " " + s
		}
		m.line("%s", line)
	}
}

// fenced writes text in a code block whose fence is longer than any run of
// backticks inside it, so no content can close it early.
func (m *mdWriter) fenced(indent, lang, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	m.line("%s%s%s", indent, fence, lang)
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		m.line("%s%s", indent, l)
	}
	m.line("%s%s", indent, fence)
}

func noticeLabel(level string) string {
	switch level {
	case "error":
		return "Error"
	case "warning":
		return "Warning"
	case "compaction":
		return "Note"
	case timeline.LevelSteering:
		return "You, while it worked"
	}
	return "Note"
}

// code is text as inline code, with a backtick delimiter longer than any
// run inside it.
func code(s string) string {
	if s == "" {
		return ""
	}
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return tick + " " + s + " " + tick
	}
	return tick + s + tick
}

// quote prefixes every line with "> ".
func quote(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
