package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/olly-agent/olly/internal/timeline"
)

// TextOptions tune Text.
type TextOptions struct {
	// Color allows ANSI colour (a terminal).
	Color bool
	// OutputLines is how many last lines of a command's output are shown
	// (default 5; the full output is in the Markdown and HTML exports).
	OutputLines int
}

// Text writes the session for a terminal (`olly sessions show`): prompts,
// the assistant's text, each reasoning block collapsed to one line, tool
// groups with their actions and approvals, changed files and the final
// message.
func Text(w io.Writer, d Doc, o TextOptions) error {
	if o.OutputLines <= 0 {
		o.OutputLines = 5
	}
	bw := bufio.NewWriter(w)
	t := &textWriter{w: bw, d: d, o: o}
	t.header()
	for _, it := range d.items() {
		t.line("")
		if it.Kind == timeline.KindUser {
			t.user(it)
		} else {
			t.assistant(it)
		}
	}
	return bw.Flush()
}

type textWriter struct {
	w *bufio.Writer
	d Doc
	o TextOptions
}

func (t *textWriter) line(format string, args ...any) {
	fmt.Fprintf(t.w, format, args...)
	t.w.WriteByte('\n')
}

func (t *textWriter) paint(code, s string) string {
	if !t.o.Color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (t *textWriter) dim(s string) string  { return t.paint("2", s) }
func (t *textWriter) bold(s string) string { return t.paint("1", s) }

func (t *textWriter) header() {
	t.line("%s", t.bold(safe(t.d.title())))
	s := t.d.Session
	if s == nil {
		return
	}
	facts := []string{s.ID, s.Workspace}
	if s.Model != "" {
		facts = append(facts, s.Model)
	}
	facts = append(facts, "created "+stamp(s.CreatedAt))
	t.line("%s", t.dim(safe(strings.Join(facts, " · "))))
	if s.ParentSessionID != "" {
		t.line("%s", t.dim(fmt.Sprintf("forked from %s after seq %d", s.ParentSessionID, s.ForkedFromSeq)))
	}
}

func (t *textWriter) user(it *timeline.Item) {
	t.line("%s %s", t.bold("❯ You"), t.dim(fmt.Sprintf("· turn %d · seq %d", it.Turn, it.Seq)))
	t.line("%s", indentText(safe(strings.TrimSpace(it.Text)), "  "))
	if len(it.Attachments) > 0 {
		names := make([]string, len(it.Attachments))
		for i, a := range it.Attachments {
			names[i] = oneLine(attachmentName(a))
		}
		t.line("  %s", t.dim("attached: "+strings.Join(names, ", ")))
	}
}

func (t *textWriter) assistant(it *timeline.Item) {
	t.line("%s %s", t.bold("● olly"), t.dim("· "+strings.Join(t.d.facts(it), " · ")))
	for _, b := range it.Blocks {
		t.block(b)
	}
	if it.Error != "" {
		t.line("  %s %s", t.paint("31", "error:"), oneLine(it.Error))
	}
}

func (t *textWriter) block(b *timeline.Block) {
	switch b.Kind {
	case timeline.BlockThinking:
		head := "∴ " + strings.ToLower(thoughtFor(b))
		t.line("  %s", t.dim(head+": "+oneLine(firstLine(b.Text, 100))))
	case timeline.BlockText, timeline.BlockFinal:
		t.line("%s", indentText(safe(strings.TrimSpace(b.Text)), "  "))
	case timeline.BlockGroup:
		t.group(b.Group, "  ")
	case timeline.BlockFiles:
		t.files(b.Files)
	case timeline.BlockNotice:
		label := noticeLabel(b.Level)
		if b.Level == "error" || b.Level == "warning" {
			label = t.paint("31", strings.ToLower(label)+":")
		} else {
			label = t.dim(strings.ToLower(label) + ":")
		}
		t.line("  %s %s", label, oneLine(b.Text))
	}
}

func (t *textWriter) group(g *timeline.Group, indent string) {
	title := "▸ " + oneLine(g.Title)
	if g.Detail != "" {
		title += " " + t.dim(oneLine(g.Detail))
	}
	t.line("%s%s", indent, t.bold(title))
	for _, th := range g.Thinking {
		t.line("%s  %s", indent, t.dim("∴ "+oneLine(firstLine(th, 100))))
	}
	for _, a := range g.Actions {
		t.action(a, indent+"  ")
	}
	for _, c := range g.Children {
		t.group(c, indent+"  ")
	}
}

func (t *textWriter) action(a *timeline.Action, indent string) {
	m := mark(a.Status)
	switch m {
	case "✓":
		m = t.paint("32", m)
	case "✗":
		m = t.paint("31", m)
	}
	line := indent + m + " " + oneLine(a.Text)
	if a.Detail != "" {
		line += " " + t.dim(oneLine(a.Detail))
	}
	if s := stats(a.Additions, a.Deletions); s != "" {
		line += " " + s
	}
	t.line("%s", line)
	if ap := a.Approval; ap != nil {
		t.line("%s  %s", indent, t.dim(oneLine(approvalLine(ap))))
	}
	if a.Output != "" {
		t.line("%s", t.dim(indentText(safe(lastLines(a.Output, t.o.OutputLines)), indent+"    ")))
	}
}

func (t *textWriter) files(f *timeline.Files) {
	t.line("  %s", t.bold("files changed ("+f.Status+"):"))
	for _, c := range f.Files {
		line := "    " + fileAction(c) + " " + oneLine(c.Path)
		if s := stats(c.Additions, c.Deletions); s != "" {
			line += " " + s
		}
		t.line("%s", line)
	}
}

// oneLine collapses s to one line (a newline would end a Markdown table
// cell or list item, or break a terminal line's indentation).
func oneLine(s string) string { return strings.Join(strings.Fields(safe(s)), " ") }

// safe removes control characters but newlines and tabs, so text from the
// model or a command cannot move the cursor or recolour the person's
// terminal.
func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

func indentText(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
