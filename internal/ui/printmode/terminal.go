package printmode

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
)

// terminal asks the person at the controlling terminal. Lines are read by
// one goroutine so a question can be abandoned when the run is interrupted.
type terminal struct {
	w     io.Writer
	lines chan string
	stop  chan struct{}
}

// newTerminal starts reading lines from rw. The reading goroutine ends when
// rw reaches EOF, or, once close is called, at the next line it reads (a
// terminal read cannot be interrupted; the process is about to exit then).
func newTerminal(rw io.ReadWriter) *terminal {
	t := &terminal{w: rw, lines: make(chan string), stop: make(chan struct{})}
	go func() {
		defer close(t.lines)
		sc := bufio.NewScanner(rw)
		for sc.Scan() {
			select {
			case t.lines <- sc.Text():
			case <-t.stop:
				return
			}
		}
	}()
	return t
}

// close stops handing out lines.
func (t *terminal) close() { close(t.stop) }

// readLine returns the next line, or an error when ctx ends or the terminal
// closes.
func (t *terminal) readLine(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-t.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(l), nil
	}
}

// ask shows an approval request and reads the answer: yes, no (with an
// optional reason) or, for commands, an edited command.
func (t *terminal) ask(ctx context.Context, s style, p event.ApprovalRequested) (approval.Answer, error) {
	fmt.Fprintln(t.w)
	switch p.Kind {
	case event.ApprovalCommand:
		fmt.Fprintf(t.w, "%s %s\n", s.bold("olly wants to run:"), p.Command)
		if p.Cwd != "" {
			fmt.Fprintf(t.w, "  in %s\n", p.Cwd)
		}
	case event.ApprovalFileEdit:
		fmt.Fprintf(t.w, "%s %s\n", s.bold("olly wants to edit:"), p.FilePath)
		if p.Diff != "" {
			fmt.Fprintln(t.w, colourDiff(s, p.Diff))
		}
	case event.ApprovalTool:
		fmt.Fprintf(t.w, "%s %s %s\n", s.bold("olly wants to call:"), p.Tool, p.Arguments)
	default:
		fmt.Fprintf(t.w, "%s %s\n", s.bold("olly wants access to:"), p.FilePath)
	}
	fmt.Fprintf(t.w, "  %s %s\n", severityLabel(s, p.Severity), p.Reason)
	prompt := "Approve? [y]es / [n]o"
	if p.Kind == event.ApprovalCommand {
		prompt += " / [e]dit"
	}
	for {
		fmt.Fprint(t.w, prompt+": ")
		line, err := t.readLine(ctx)
		if err != nil {
			return approval.Answer{}, err
		}
		switch strings.ToLower(line) {
		case "y", "yes":
			return approval.Answer{Approve: true}, nil
		case "n", "no":
			fmt.Fprint(t.w, "Reason for the agent (optional): ")
			reason, err := t.readLine(ctx)
			if err != nil {
				return approval.Answer{}, err
			}
			return approval.Answer{Approve: false, Reason: reason}, nil
		case "e", "edit":
			if p.Kind != event.ApprovalCommand {
				continue
			}
			fmt.Fprint(t.w, "Command to run instead: ")
			cmd, err := t.readLine(ctx)
			if err != nil {
				return approval.Answer{}, err
			}
			if cmd == "" {
				continue
			}
			return approval.Answer{Approve: true, Command: cmd}, nil
		}
	}
}

func severityLabel(s style, severity string) string {
	label := "[" + severity + "]"
	switch severity {
	case "critical", "high":
		return s.bad(label)
	}
	return s.dim(label)
}

func colourDiff(s style, diff string) string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			lines[i] = s.bold(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = s.good(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = s.bad(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = s.dim(l)
		}
	}
	return strings.Join(lines, "\n")
}
