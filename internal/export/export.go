// Package export turns a stored session into documents: a Markdown
// transcript, a self-contained HTML page, the raw event log as JSONL, and
// the plain-text view `olly sessions show` prints. Every rendering except
// JSONL is built from the session's timeline (internal/timeline), the same
// structure every frontend renders, so an export shows what the person saw.
package export

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/timeline"
)

// Doc is a session to render: its row and the timeline of its current
// branch.
type Doc struct {
	Session  *store.Session
	Timeline *timeline.Timeline
}

// title is the session's title, from the timeline (the latest
// title_changed on the branch) or the row.
func (d Doc) title() string {
	if d.Timeline != nil && d.Timeline.Title != "" {
		return d.Timeline.Title
	}
	if d.Session != nil && d.Session.Title != "" {
		return d.Session.Title
	}
	return "Untitled session"
}

func (d Doc) items() []*timeline.Item {
	if d.Timeline == nil {
		return nil
	}
	return d.Timeline.Items
}

// stamp formats a time the same way on every machine (exports are shared).
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// duration renders a thinking time: "1.8 s", "2 min 5 s".
func duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d <= 0:
		return ""
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// stats renders a +N −N badge, or "" for no change.
func stats(add, del int) string {
	if add == 0 && del == 0 {
		return ""
	}
	return fmt.Sprintf("+%d −%d", add, del)
}

// mark is an action's status as one character.
func mark(status string) string {
	switch status {
	case event.ActionSuccess:
		return "✓"
	case event.ActionError:
		return "✗"
	case event.ActionPending:
		return "?"
	}
	return "…"
}

// attachmentName names an attachment with its line range.
func attachmentName(a event.Attachment) string {
	switch {
	case a.Image != nil:
		// The bytes are in the store by hash (docs/events.md).
		return fmt.Sprintf("%s (%s image, %d bytes, sha256 %.12s)", a.Path, a.Image.MimeType, a.Image.Size, a.Image.SHA256)
	case a.StartLine > 0 && a.EndLine > a.StartLine:
		return fmt.Sprintf("%s:L%d-L%d", a.Path, a.StartLine, a.EndLine)
	case a.StartLine > 0:
		return fmt.Sprintf("%s:L%d", a.Path, a.StartLine)
	}
	return a.Path
}

// approvalLine describes an approval and its answer in one line.
func approvalHead(ap *timeline.Approval) string {
	what := ap.Kind
	if ap.Severity != "" && ap.Severity != "none" {
		what += ", " + ap.Severity
	}
	subject := ap.Command
	if subject == "" {
		subject = ap.FilePath
	}
	line := "approval (" + what + ")"
	if subject != "" {
		line += ": " + subject
	}
	if ap.Reason != "" {
		line += " — " + ap.Reason
	}
	return line
}

// approvalLine is an approval with its decision.
func approvalLine(ap *timeline.Approval) string {
	return approvalHead(ap) + " → " + decision(ap)
}

// decision is an approval's answer in words.
func decision(ap *timeline.Approval) string {
	if ap.Decision == "" {
		return "waiting for an answer"
	}
	d := ap.Decision
	if ap.AutoApproved {
		d += " automatically"
	}
	if ap.ApprovedCommand != "" && ap.ApprovedCommand != ap.Command {
		d += ", edited to: " + ap.ApprovedCommand
	}
	if ap.DenyReason != "" {
		d += " (" + ap.DenyReason + ")"
	}
	return d
}

// fileAction is a changed file's action as a word.
func fileAction(f event.ChangedFile) string {
	if f.Action == "" {
		return "modified"
	}
	return f.Action
}

// firstLine returns the first non-blank line of s, cut to n characters.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return cut(l, n)
		}
	}
	return ""
}

// cut shortens s to at most n characters, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// status is how a turn ended, in words. A turn with no end is running
// while the session is generating, and was cut off otherwise.
// facts are an answer's heading: its turn, mode, model and how it ended.
func (d Doc) facts(it *timeline.Item) []string {
	facts := []string{fmt.Sprintf("turn %d", it.Turn)}
	for _, f := range []string{string(it.Mode), it.Model} {
		if f != "" {
			facts = append(facts, f)
		}
	}
	return append(facts, d.status(it))
}

// thoughtFor labels a thinking block: "Thought for 3s", or "Thinking"
// when its duration is unknown.
func thoughtFor(b *timeline.Block) string {
	if s := duration(b.DurationMs); s != "" {
		return "Thought for " + s
	}
	return "Thinking"
}

func (d Doc) status(it *timeline.Item) string {
	switch it.Status {
	case event.FinishDone:
		return "done"
	case event.FinishFailed:
		return "failed"
	case event.FinishCanceled:
		return "canceled"
	case event.FinishMaxIterations:
		return "stopped at the iteration limit"
	case "running", "":
		if d.Session != nil && d.Session.Status == store.StatusGenerating {
			return "running"
		}
		return "did not finish"
	}
	return it.Status
}
