package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/timeline"
)

// outputLines is how many lines of a tool's output show when the output is
// collapsed; ctrl+o expands all of it.
const outputLines = 6

// spinnerFrames animate what is running.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// renderer turns timeline items into lines. It holds nothing but what the
// frame needs: the timeline is the state.
type renderer struct {
	st     styles
	md     *markdown
	width  int
	expand bool // ctrl+o: everything expanded
	spin   int
	// open are the elements expanded one by one (a thinking block, a
	// tool action's output, a sub-agent group: their pointers), and sel
	// the element selected in select mode (expand.go).
	open map[any]bool
	sel  any
	// times are when each tool action started and ended (from the events'
	// At), for the duration shown on its row.
	times map[string]*span
}

// span is an action's start and end.
type span struct{ start, end time.Time }

// item renders one timeline item; running marks the turn still working.
func (r *renderer) item(it *timeline.Item) []string {
	if it.Kind == timeline.KindUser {
		return r.user(it)
	}
	var out []string
	head := "olly"
	if it.Mode != "" && it.Mode != event.ModeAgent {
		head += " · " + string(it.Mode)
	}
	out = append(out, r.st.head.Render(head))
	running := it.Status == "running"
	for i, b := range it.Blocks {
		last := i == len(it.Blocks)-1
		out = append(out, r.block(b, running && last)...)
	}
	if running && it.Retry != "" { // a model request waiting to be retried, until the next output
		out = append(out, "  "+r.st.warn.Render("↻ ")+r.st.muted.Render(r.clip(oneLine(it.Retry), 4)))
	}
	switch {
	case running && it.Live != "":
		out = append(out, "  "+r.st.accent.Render(spinnerFrames[r.spin%len(spinnerFrames)])+" "+r.st.muted.Render(r.clip(oneLine(it.Live), 4)))
	case it.Status == event.FinishCanceled:
		out = append(out, "  "+r.st.warn.Render("■ canceled")+r.st.muted.Render(" — what was done is above"))
	case it.Status == event.FinishFailed && it.Error != "":
		out = append(out, r.wrapIndent(r.st.bad.Render("✗ failed: ")+oneLine(it.Error), "  "))
	case it.Status == event.FinishMaxIterations:
		out = append(out, "  "+r.st.warn.Render("■ stopped at the iteration limit")+r.st.muted.Render(" — send a message to continue"))
	}
	return append(out, "")
}

func (r *renderer) user(it *timeline.Item) []string {
	text := sanitize(strings.TrimSpace(it.Text))
	lines := strings.Split(ansi.Wrap(text, max(10, r.width-4), " "), "\n")
	out := make([]string, 0, len(lines)+2)
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = r.st.user.Render("› ")
		}
		out = append(out, p+r.st.user.UnsetBold().Render(l))
	}
	for _, a := range it.Attachments {
		label := "@ " + oneLine(a.Path)
		if a.Image != nil {
			label += " · " + oneLine(a.Image.MimeType) + " image, " + session.ByteSize(a.Image.Size)
		}
		out = append(out, "  "+r.st.muted.Render(label))
	}
	return append(out, "")
}

// block renders one block; live marks the block being written now.
func (r *renderer) block(b *timeline.Block, live bool) []string {
	switch b.Kind {
	case timeline.BlockThinking:
		return r.thinking(b, live)
	case timeline.BlockText, timeline.BlockFinal:
		var s string
		if live {
			s = r.md.streaming(b.Text)
		} else {
			s = r.md.render(b.Text)
		}
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	case timeline.BlockGroup:
		return r.group(b.Group, "  ")
	case timeline.BlockFiles:
		return r.files(b.Files)
	case timeline.BlockNotice:
		return r.notice(b)
	case timeline.BlockTodos:
		return r.todos(b.Todos)
	}
	return nil
}

func (r *renderer) thinking(b *timeline.Block, live bool) []string {
	if live {
		head := "  " + r.st.accent.Render(spinnerFrames[r.spin%len(spinnerFrames)]) + " " + r.st.muted.Render("Thinking…")
		return append([]string{head}, r.mutedTail(b.Text, 3, "    ")...)
	}
	label := "Thinking"
	if b.DurationMs > 0 {
		label = "Thought for " + seconds(b.DurationMs)
	}
	if !r.isOpen(b) {
		return []string{r.mark(b, "  "+r.st.muted.Render("▸ "+label))}
	}
	out := []string{r.mark(b, "  "+r.st.muted.Render("▾ "+label))}
	return append(out, r.mutedTail(b.Text, 0, "    ")...)
}

func (r *renderer) group(g *timeline.Group, indent string) []string {
	mark := r.st.accent.Render("●")
	if !g.Done {
		mark = r.st.accent.Render(spinnerFrames[r.spin%len(spinnerFrames)])
	}
	title := indent + mark + " " + r.st.info.Bold(true).Render(oneLine(g.Title))
	if g.Detail != "" {
		title += " " + r.st.muted.Render(oneLine(g.Detail))
	}
	out := []string{r.mark(g, r.clipLine(title))}
	if g.Subagent && g.Done && !r.isOpen(g) {
		n := len(g.Actions)
		for _, c := range g.Children {
			n += len(c.Actions)
		}
		return append(out, indent+"  "+r.st.muted.Render(fmt.Sprintf("▸ %d tool call(s) — ctrl+o shows them (ctrl+g: this one)", n)))
	}
	for _, th := range g.Thinking {
		if r.expand || (g.Subagent && r.open[g]) {
			out = append(out, r.mutedTail(th, 0, indent+"  ∴ ")...)
		}
	}
	for _, a := range g.Actions {
		out = append(out, r.action(a, indent+"  ")...)
	}
	for _, c := range g.Children {
		out = append(out, r.group(c, indent+"  ")...)
	}
	return out
}

func (r *renderer) action(a *timeline.Action, indent string) []string {
	var mark string
	switch a.Status {
	case event.ActionSuccess:
		mark = r.st.ok.Render("✓")
	case event.ActionError:
		mark = r.st.bad.Render("✗")
	case event.ActionRunning:
		mark = r.st.accent.Render(spinnerFrames[r.spin%len(spinnerFrames)])
	default:
		mark = r.st.muted.Render("○")
	}
	line := indent + mark + " " + oneLine(a.Text)
	if a.Detail != "" {
		line += " " + r.st.muted.Render(oneLine(a.Detail))
	}
	if (a.Additions > 0 || a.Deletions > 0) && !strings.Contains(a.Text+" "+a.Detail, fmt.Sprintf("+%d", a.Additions)) {
		// The badge, unless the action's own text already carries it.
		line += " " + r.stat(a.Additions, a.Deletions)
	}
	if d := r.duration(a); d != "" {
		line += " " + r.st.muted.Render(d)
	}
	out := []string{r.mark(a, r.clipLine(line))}
	if ap := a.Approval; ap != nil {
		out = append(out, r.approvalInline(ap, indent+"  ")...)
	}
	output := a.Output
	if output == "" {
		output = a.LiveOutput
	}
	if output != "" {
		n := outputLines
		if r.isOpen(a) {
			n = 0
		}
		out = append(out, r.mutedTail(output, n, indent+"  │ ")...)
	}
	if a.Artifact != "" {
		// The full output of a long command is in a file: say where.
		out = append(out, r.clipLine(indent+"  "+r.st.muted.Render("└ full output: ")+sanitize(a.Artifact)))
	}
	return out
}

// duration is how long a finished action ran, when both ends are known.
func (r *renderer) duration(a *timeline.Action) string {
	s := r.times[a.ActionID]
	if s == nil || s.start.IsZero() || s.end.IsZero() {
		return ""
	}
	d := s.end.Sub(s.start)
	if d < time.Second {
		return "" // short steps carry no figure (the tool's detail may give one)
	}
	return seconds(d.Milliseconds())
}

func (r *renderer) files(f *timeline.Files) []string {
	out := []string{"  " + r.st.info.Bold(true).Render("Files changed") + r.st.muted.Render(" — ctrl+f to review (keep or undo)")}
	for _, c := range f.Files {
		out = append(out, r.clipLine("    "+fileMark(c)+" "+oneLine(c.Path)+" "+r.stat(c.Additions, c.Deletions)))
	}
	return out
}

func (r *renderer) notice(b *timeline.Block) []string {
	var label string
	switch b.Level {
	case "error":
		label = r.st.bad.Render("error: ")
	case "warning":
		label = r.st.warn.Render("warning: ")
	case timeline.LevelSteering:
		label = r.st.user.Render("› ") + r.st.muted.Render("(while it worked) ")
	default:
		label = r.st.muted.Render("note: ")
	}
	return []string{r.wrapIndent(label+sanitize(strings.TrimSpace(b.Text)), "  ")}
}

func (r *renderer) stat(add, del int) string {
	return r.st.add.Render(fmt.Sprintf("+%d", add)) + " " + r.st.del.Render(fmt.Sprintf("−%d", del))
}

func fileMark(c event.ChangedFile) string {
	if c.Action == "created" {
		return "A"
	}
	return "M"
}

// mutedTail shows the last n lines of text (all when n is 0), muted and
// indented, each clipped to the width.
func (r *renderer) mutedTail(text string, n int, indent string) []string {
	lines := strings.Split(strings.TrimRight(sanitize(text), "\n"), "\n")
	skipped := 0
	if n > 0 && len(lines) > n {
		skipped = len(lines) - n
		lines = lines[skipped:]
	}
	out := make([]string, 0, len(lines)+1)
	if skipped > 0 {
		out = append(out, indent+r.st.muted.Render(fmt.Sprintf("… %d line(s) above (ctrl+o: all, ctrl+g: pick one)", skipped)))
	}
	for _, l := range lines {
		out = append(out, r.clipLine(indent+r.st.muted.Render(l)))
	}
	return out
}

// clipLine cuts a styled line to the width.
func (r *renderer) clipLine(s string) string {
	if r.width <= 0 || ansi.StringWidth(s) <= r.width {
		return s
	}
	return ansi.Truncate(s, r.width, "…")
}

// clip shortens plain text to the width less used columns.
func (r *renderer) clip(s string, used int) string {
	w := r.width - used
	if w < 5 || ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// wrapIndent wraps a styled line to the width, continuation lines indented.
func (r *renderer) wrapIndent(s, indent string) string {
	w := r.width - len(indent)
	if w < 10 {
		w = 10
	}
	lines := strings.Split(ansi.Wrap(s, w, " "), "\n")
	for i := range lines {
		lines[i] = indent + lines[i]
	}
	return strings.Join(lines, "\n")
}

// oneLine collapses s to one line.
func oneLine(s string) string { return strings.Join(strings.Fields(sanitize(s)), " ") }

// seconds formats a duration in ms the way the timeline shows it.
func seconds(ms int64) string {
	if ms < 60_000 {
		return fmt.Sprintf("%ds", max(1, (ms+500)/1000))
	}
	return fmt.Sprintf("%dm%02ds", ms/60_000, ms/1000%60)
}
