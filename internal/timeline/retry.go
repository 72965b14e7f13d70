package timeline

import (
	"fmt"
	"time"

	"github.com/olly-agent/olly/internal/event"
)

// model_retry is ephemeral: the answer or the error that follows is what
// the log keeps. Its line is shown while the retry waits and is gone once
// the next output of the turn arrives, so a live timeline ends as the
// stored one (which never saw it) reads.

// applyRetry shows (start) or clears (end) the retry line of turn.
func (b *Builder) applyRetry(turn int, p event.ModelRetry) {
	if p.Phase != event.RetryStart {
		b.clearRetry()
		return
	}
	it := b.item(turn)
	it.Retry = RetryLine(p)
	b.retrying = it
}

// clearRetry drops the retry line, if one is shown.
func (b *Builder) clearRetry() {
	if b.retrying != nil {
		b.retrying.Retry = ""
		b.retrying = nil
	}
}

// RetryLine is how frontends word a retry that is about to wait:
// "retrying in 2s (attempt 1/3): connection refused".
func RetryLine(p event.ModelRetry) string {
	wait := (time.Duration(p.DelayMs) * time.Millisecond).Round(100 * time.Millisecond)
	attempt := fmt.Sprint(p.Attempt)
	if p.MaxAttempts > 0 {
		attempt += fmt.Sprintf("/%d", p.MaxAttempts)
	}
	s := fmt.Sprintf("retrying in %s (attempt %s)", wait, attempt)
	if p.Error != "" {
		s += ": " + p.Error
	}
	return s
}
