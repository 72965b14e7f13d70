package printmode

import (
	"fmt"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
)

// style colours progress output when the terminal allows it.
type style struct{ color bool }

func newStyle(color bool) style { return style{color: color} }

func (s style) wrap(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) dim(t string) string  { return s.wrap("2", t) }
func (s style) bad(t string) string  { return s.wrap("31", t) }
func (s style) good(t string) string { return s.wrap("32", t) }
func (s style) bold(t string) string { return s.wrap("1", t) }

func (s style) stats(add, del int) string {
	if add == 0 && del == 0 {
		return ""
	}
	return s.good(fmt.Sprintf("+%d", add)) + " " + s.bad(fmt.Sprintf("−%d", del))
}

// progress shows the agent's work on stderr: thinking, its narration, each
// finished tool action, approvals and warnings. Streaming deltas are left
// out: the durable event that supersedes them is shown instead.
func (r *renderer) progress(ev event.Event) {
	w, s := r.opts.Stderr, r.style
	switch p := ev.Data.(type) {
	case event.TurnStarted:
		fmt.Fprintln(w, s.dim("● "+p.Model))
	case event.ThinkingBlock:
		fmt.Fprintln(w, s.dim(fmt.Sprintf("  ∴ thought for %s", (time.Duration(p.DurationMs)*time.Millisecond).Round(time.Second/10))))
	case event.AssistantMessage:
		if t := strings.TrimSpace(p.Text); t != "" {
			fmt.Fprintln(w, indent(t, "  "))
		}
	case event.ProgressGroupStart:
		fmt.Fprintln(w, s.bold("▸ "+p.Title))
	case event.ToolAction:
		r.actionLine(p)
	case event.ApprovalResolved:
		how := p.Decision
		if p.AutoApproved {
			how += " automatically"
		}
		if p.Command != "" {
			how += ": " + p.Command
		}
		fmt.Fprintln(w, s.dim("    approval "+how))
	case event.Warning:
		fmt.Fprintf(w, "%s %s\n", s.bad("warning:"), p.Message)
	case event.Compaction:
		fmt.Fprintln(w, s.dim(fmt.Sprintf("  conversation compacted (%d → %d tokens)", p.TokensBefore, p.TokensAfter)))
	}
}

// actionLine prints an action when it ends (or waits for approval).
func (r *renderer) actionLine(p event.ToolAction) {
	w, s := r.opts.Stderr, r.style
	var mark string
	switch p.Status {
	case event.ActionSuccess:
		mark = s.good("✓")
	case event.ActionError:
		mark = s.bad("✗")
	case event.ActionPending:
		mark = s.dim("?")
	default:
		return
	}
	line := fmt.Sprintf("  %s %s", mark, p.Text)
	if p.Detail != "" {
		line += " " + s.dim(p.Detail)
	}
	if st := s.stats(p.Additions, p.Deletions); st != "" {
		line += " " + st
	}
	fmt.Fprintln(w, line)
	if p.Output != "" && p.Status == event.ActionError {
		fmt.Fprintln(w, s.dim(indent(lastLines(p.Output, 5), "      ")))
	}
}

func indent(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
