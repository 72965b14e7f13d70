package shell

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// Result is what one command did. A command that failed, timed out or was
// refused is still a Result: the model reads Text and decides what to do.
type Result struct {
	// Command is the command as given.
	Command string
	// Output is stdout and stderr, interleaved as written, sanitized (see
	// Sanitizer) and truncated for the model (see Truncate).
	Output string
	// Artifact is the file holding the full sanitized output; "" when
	// Output is already complete. Page it with ReadArtifactLines.
	Artifact string
	// TotalLines and TotalBytes measure the whole output (TotalBytes counts
	// raw bytes, including any written after the output cap).
	TotalLines int
	TotalBytes int64

	// ExitCode is bash's exit status: the command's, or 128+n when a signal
	// ended the command. It is -1 when bash itself was ended by a signal
	// (see Signal) or the command did not run.
	ExitCode int
	// Signal names the signal that ended bash ("SIGKILL"), if one did.
	Signal   string
	Duration time.Duration

	// StartCwd is where the command started; Cwd is where the next one
	// will. CwdReset says the command ended outside the workspace, so Cwd
	// is the primary root instead.
	StartCwd string
	Cwd      string
	CwdReset bool

	// TimedOut, Canceled and OutputCapped say why olly stopped the command,
	// and Killed how many processes it killed doing so.
	TimedOut     bool
	Timeout      time.Duration
	Canceled     bool
	OutputCapped bool
	Killed       int

	// Background lists processes the command started that were still
	// running when it returned; they run until the session's shell is
	// closed. BackgroundLog is the file their further output goes to.
	Background    []int
	BackgroundLog string

	// Rejected says why the command did not run at all (a bad cwd, say);
	// empty when it ran.
	Rejected string
	// Notes are other things the model should know, one sentence each.
	Notes []string
	// Policy is the sandbox the command ran in (Unsandboxed when nothing
	// confined it), and Refused what the sandbox probably refused, read
	// from the command's error messages.
	Policy  sandbox.Policy
	Refused []sandbox.Refusal
}

// Text renders the result for the model: the output, then one bracketed
// line per fact about how the command ended.
func (r *Result) Text() string {
	if r.Rejected != "" {
		return "[command not run: " + r.Rejected + "]"
	}
	var b strings.Builder
	if r.Output == "" {
		b.WriteString("(no output)")
	} else {
		b.WriteString(r.Output)
	}
	b.WriteString("\n\n[")
	if r.Signal != "" {
		fmt.Fprintf(&b, "shell ended by %s", r.Signal)
	} else {
		fmt.Fprintf(&b, "exit code %d", r.ExitCode)
	}
	fmt.Fprintf(&b, ", %s]", roundDuration(r.Duration))
	for _, n := range r.Notes {
		b.WriteString("\n[" + n + "]")
	}
	return b.String()
}

// roundDuration keeps durations readable: 12ms, 1.3s, 2m5s.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(time.Second)
	}
}

// plural returns "1 process", "3 processes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// formatBytes renders a byte count as the largest whole unit: 64 MiB.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.4g KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
