package timeline

import (
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// applyHookRun shows a hook run that blocked or failed as a notice (a
// warning): the person must see that their hook stopped a tool call, a
// prompt or the end of a turn, or that it is broken. Runs that went on
// quietly stay in the event log only, so a formatter hook on every write
// does not fill the screen.
func (b *Builder) applyHookRun(turn int, p event.HookRun) {
	var text string
	on := p.Event
	if p.Tool != "" {
		on += " " + p.Tool
	}
	switch {
	case p.Blocked:
		text = fmt.Sprintf("%s hook blocked (%s): %s", on, p.Command, p.Reason)
	case p.TimedOut:
		text = fmt.Sprintf("%s hook timed out after %d ms and was killed (%s)", on, p.DurationMs, p.Command)
	case p.ExitCode != 0:
		text = fmt.Sprintf("%s hook failed with exit code %d (%s): %s", on, p.ExitCode, p.Command, p.Reason)
	default:
		return
	}
	b.appendBlock(turn, &Block{Kind: BlockNotice, Level: "warning", Text: text})
}
