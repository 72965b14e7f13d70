package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/spf13/cobra"
)

// resumePick is --resume's value when no id follows it: pick from a list.
// (A space: no id contains one, and nobody types --resume=" ".)
const resumePick = " "

// pickerSize is how many recent sessions the --resume picker offers.
const pickerSize = 10

func bindResumeFlags(root *cobra.Command, opts *printOptions) {
	fl := root.Flags()
	fl.BoolVarP(&opts.Continue, "continue", "c", false, "with -p: continue the latest session of this workspace")
	fl.StringVarP(&opts.Resume, "resume", "r", "", "with -p: continue session `ID` (a unique prefix will do); without an ID, pick one from a list")
	fl.Lookup("resume").NoOptDefVal = resumePick
}

// resuming reports whether print mode continues a session.
func (o *printOptions) resuming() bool { return o.Continue || o.Resume != "" }

// checkResumeFlags says what --continue and --resume go with.
func (o *printOptions) checkResumeFlags() error {
	switch {
	case o.Continue && o.Resume != "":
		return usageError("--continue and --resume both name a session: use one (--continue: the latest here; --resume ID: that one)")
	case !o.Print && o.Continue:
		return usageError(`--continue continues the latest session of this workspace in print mode: olly -p --continue "next task" (at a terminal, olly --continue opens it in the interactive UI)`)
	case !o.Print && o.Resume != "":
		return usageError(`--resume continues a session in print mode: olly -p --resume ID "next task" (at a terminal, olly --resume opens it in the interactive UI; olly sessions list shows the ids)`)
	}
	return nil
}

// resumeArgs takes the session id off the arguments when --resume was given
// without "=ID" and the first argument is the id (or a unique prefix) of a
// session: `olly -p --resume 01JD5ZQ8 "task"`. An argument that only looks
// like an id and matches no session stays part of the task.
func resumeArgs(ctx context.Context, f *Factory, opts *printOptions, args []string) ([]string, error) {
	if opts.Resume != resumePick || len(args) == 0 || !looksLikeID(args[0]) {
		return args, nil
	}
	a, err := f.Admin(ctx)
	if err != nil {
		return nil, err
	}
	sess, err := a.Sessions.Find(ctx, args[0])
	switch {
	case err == nil:
		opts.Resume = sess.ID
		return args[1:], nil
	case errors.Is(err, session.ErrAmbiguous):
		return nil, usageError("%v", err)
	case errors.Is(err, store.ErrNotFound):
		opts.resumeMiss = args[0]
		return args, nil
	}
	return nil, err
}

// looksLikeID reports whether s could be a session id or a prefix of one:
// at least 4 characters of Crockford base32 (ULIDs), with a digit in them.
func looksLikeID(s string) bool {
	if len(s) < 4 || len(s) > 26 {
		return false
	}
	digit := false
	for _, r := range strings.ToUpper(s) {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'A' && r <= 'Z' && !strings.ContainsRune("ILOU", r):
		default:
			return false
		}
	}
	return digit
}

// printSession is the session a print-mode run works in, the prompt for it
// and the last seq stored before it (only newer events are shown): a new
// session, or the one --continue or --resume names.
func printSession(ctx context.Context, f *Factory, a *app.App, opts *printOptions, dir string, term io.ReadWriter, task string) (*store.Session, session.PromptInput, int64, error) {
	in := session.PromptInput{Text: task}
	if !opts.resuming() {
		// The session's id is picked first so its shell starts now,
		// while the models are listed and the session is stored.
		id := store.NewID(time.Now())
		a.PrestartShell(&store.Session{ID: id, Workspace: dir, Mode: string(event.ModeAgent)})
		choice, err := pickModel(ctx, f, a, a.Config.AgentMode.Model)
		if err != nil {
			return nil, in, 0, err
		}
		sess, err := a.Sessions.Create(ctx, session.CreateOptions{ID: id, Workspace: dir, Mode: event.ModeAgent, Model: choice})
		return sess, in, 0, err
	}
	sess, err := resumeTarget(ctx, f, a.Sessions, opts, dir, term)
	if err != nil {
		return nil, in, 0, err
	}
	a.PrestartShell(sess)
	// The session keeps its own model unless --model says otherwise for
	// this run.
	if f.flagSet != nil && f.flagSet.Changed("model") || sess.Model == "" {
		if in.Model, err = pickModel(ctx, f, a, a.Config.AgentMode.Model); err != nil {
			return nil, in, 0, err
		}
	}
	if key, err := session.WorkspaceKey(dir); err == nil && key != sess.Workspace {
		fmt.Fprintf(f.IO.ErrOut, "olly: session %s belongs to %s; its turn runs there\n", sess.ID, sess.Workspace)
	}
	after, err := a.Sessions.LastSeq(ctx, sess.ID)
	if err != nil {
		return nil, in, 0, err
	}
	return sess, in, after, nil
}

// pickModel checks the configured agent model, or picks one and says which.
func pickModel(ctx context.Context, f *Factory, a *app.App, configured string) (string, error) {
	choice, err := models.NewCatalog(a.Provider).WithCache(a.Store).PickAgent(ctx, configured)
	if err != nil {
		return "", &ExitError{Code: ExitFailure, Err: err}
	}
	if choice.Picked {
		fmt.Fprintln(f.IO.ErrOut, "olly:", choice.Reason)
	}
	return choice.Name, nil
}

// resumeTarget finds the session --continue or --resume names, asking at
// the terminal when --resume has no id.
func resumeTarget(ctx context.Context, f *Factory, svc *session.Service, opts *printOptions, dir string, term io.ReadWriter) (*store.Session, error) {
	if opts.Continue || opts.Resume != resumePick {
		sess, err := svc.Resume(ctx, session.ResumeTarget{Workspace: dir, ID: opts.Resume, Latest: opts.Continue})
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: err}
		}
		return sess, nil
	}
	list, err := svc.Recent(ctx, dir, pickerSize)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		_, err := svc.Latest(ctx, dir) // says there is none, and what to do
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	if term == nil {
		miss := ""
		if opts.resumeMiss != "" {
			miss = fmt.Sprintf("no session matches %q, and ", opts.resumeMiss)
		}
		return nil, usageError("%s--resume without a session id lists sessions to pick from, which needs a terminal: give the id (olly -p --resume=ID \"…\"; olly sessions list shows them), or continue the latest with --continue", miss)
	}
	return pickSession(term, list, time.Now())
}

// pickSession shows a numbered list of sessions on the terminal and reads
// the choice: a number, Enter for the first, q to give up.
func pickSession(term io.ReadWriter, list []store.Session, now time.Time) (*store.Session, error) {
	fmt.Fprintln(term, "Recent sessions here:")
	for i, s := range list {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(term, "  %2d) %-50s  %-11s  %s  %s\n", i+1, cell(title, 50), statusWord(s.Status), relativeTime(now, s.UpdatedAt), s.ID)
	}
	for tries := 0; tries < 3; tries++ {
		fmt.Fprintf(term, "Continue which session? [1-%d, Enter: 1, q: cancel] ", len(list))
		answer, err := readLine(term)
		answer = strings.TrimSpace(answer)
		switch {
		case answer == "" && err == nil:
			return &list[0], nil
		case strings.EqualFold(answer, "q"):
			return nil, &ExitError{Code: ExitFailure, Err: errors.New("no session picked: nothing was run")}
		case err != nil && answer == "":
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("no session picked (the terminal closed): nothing was run")}
		}
		if n, convErr := strconv.Atoi(answer); convErr == nil && n >= 1 && n <= len(list) {
			return &list[n-1], nil
		}
		fmt.Fprintf(term, "%q is not one of the numbers 1 to %d.\n", answer, len(list))
	}
	return nil, &ExitError{Code: ExitUsage, Err: errors.New("no session picked after three tries: nothing was run")}
}

// readLine reads up to a newline one byte at a time: the terminal is read
// again later for approvals, and a buffered reader would swallow what
// follows the line.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(one[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
}

func firstNonBlank(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
