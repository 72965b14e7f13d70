package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/ui/printmode"
)

// maxPipedInput bounds what is read from a piped stdin as part of the task.
const maxPipedInput = 1 << 20

// printOptions are the flags of print mode (olly -p).
type printOptions struct {
	Print  bool
	Output string
	Yes    bool
	// Continue and Resume continue a session (sessions_resume.go);
	// resumeMiss is an argument that looked like an id and matched none.
	Continue   bool
	Resume     string
	resumeMiss string
	// Session are the session's own overrides (print_settings.go).
	Session sessionFlags
}

func bindPrintFlags(root *cobra.Command, opts *printOptions) {
	fl := root.Flags()
	fl.BoolVarP(&opts.Print, "print", "p", false, "run the task given as arguments (or on stdin) once, print the answer and exit")
	fl.StringVar(&opts.Output, "output", printmode.OutputText, "print mode output: `text` (the answer) or json (every event, one per line)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "approve commands and edits up to high severity without asking (never critical)")
	bindResumeFlags(root, opts)
	bindSessionFlags(root, &opts.Session)
}

// runRoot is olly without a subcommand.
func runRoot(cmd *cobra.Command, f *Factory, opts *printOptions, args []string) error {
	if !opts.Print && f.interactive() {
		return runTUI(cmd.Context(), f, opts, args)
	}
	if err := opts.checkResumeFlags(); err != nil {
		return err
	}
	if !opts.Print {
		if len(args) == 0 {
			return cmd.Help()
		}
		return usageError("unknown command %q: to give olly a task, run olly -p %q (at a terminal, olly \"task\" opens the interactive UI; see olly --help)",
			args[0], strings.Join(args, " "))
	}
	if opts.Output != printmode.OutputText && opts.Output != printmode.OutputJSON {
		return usageError("--output %q: use text or json", opts.Output)
	}
	if err := opts.Session.check(); err != nil {
		return err
	}
	err := runTask(cmd.Context(), f, opts, args)
	if err != nil && opts.Output == printmode.OutputJSON {
		writeErrorEvent(f.IO.Out, err)
	}
	return err
}

// runTask reads the task and runs it.
func runTask(ctx context.Context, f *Factory, opts *printOptions, args []string) error {
	args, err := resumeArgs(ctx, f, opts, args)
	if err != nil {
		return err
	}
	task, err := taskText(f.IO, args)
	if err != nil {
		return err
	}
	return runPrint(ctx, f, opts, task)
}

// writeErrorEvent puts an error that ended print mode on stdout as an
// error event, so that a program reading --output json learns why nothing
// else came: the server is down, the model is missing, the settings are
// wrong. An error the turn already reported (its error event is in the
// stream) has no message of its own here.
func writeErrorEvent(w io.Writer, err error) {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return
	}
	p := event.Error{Message: err.Error()}
	if k := llm.KindOf(err); k != llm.KindUnknown {
		p.Kind = k.String()
	} else if errors.As(err, &ee) && ee.Code == ExitUsage {
		p.Kind = "usage"
	}
	line, merr := json.Marshal(event.Event{At: time.Now().UTC(), Data: p})
	if merr != nil {
		return
	}
	_, _ = w.Write(append(line, '\n'))
}

// taskText joins the arguments and whatever is piped on stdin.
func taskText(streams *IOStreams, args []string) (string, error) {
	task := strings.TrimSpace(strings.Join(args, " "))
	if !streams.StdinTTY && streams.In != nil {
		b, err := io.ReadAll(io.LimitReader(streams.In, maxPipedInput+1))
		if err != nil {
			return "", fmt.Errorf("read the task from stdin: %w", err)
		}
		if len(b) > maxPipedInput {
			return "", usageError("stdin holds more than %d bytes: attach large files with @path instead", maxPipedInput)
		}
		if piped := strings.TrimSpace(string(b)); piped != "" {
			if task == "" {
				task = piped
			} else {
				task += "\n\n" + piped
			}
		}
	}
	if task == "" {
		return "", usageError(`no task given: run olly -p "describe the task" (or pipe it on stdin)`)
	}
	return task, nil
}

// runPrint builds the services, starts a session and runs one turn.
func runPrint(ctx context.Context, f *Factory, opts *printOptions, task string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	d, err := f.runDeps(ctx)
	if err != nil {
		return err
	}
	defer d.closeLog()
	cfg, workspace, logger, st := d.cfg, d.workspace, d.log, d.store
	term := f.terminal()
	if term != nil {
		defer term.Close()
	}
	a, err := app.New(ctx, app.Options{Config: cfg, Store: st, Provider: d.provider, Log: logger, Approvals: printPolicy(opts.Yes, term != nil), ExtraRoots: d.addDirs})
	if err != nil {
		return err
	}
	defer a.Close()
	// The first line of every run: what confines the commands it runs.
	fmt.Fprintln(f.IO.ErrOut, "olly: "+a.SandboxStatus())
	if opts.Yes && !a.Sandbox.Status().Active() {
		fmt.Fprintln(f.IO.ErrOut, "olly: warning: --yes approves commands up to high severity, and no sandbox confines them on this machine")
	}

	var terminal io.ReadWriter
	if term != nil {
		terminal = term
	}
	// A new session, or the one --continue or --resume names; only the
	// events of this run are shown (those after afterSeq).
	sess, input, afterSeq, err := printSession(ctx, f, a, opts, workspace, terminal, task)
	if err != nil {
		return err
	}
	if err := opts.Session.apply(ctx, a, sess.ID); err != nil {
		return err
	}
	logger.Info("print mode", "session", sess.ID, "workspace", sess.Workspace, "model", firstNonBlank(input.Model, sess.Model))

	// Ctrl-C (or SIGTERM) cancels the turn: streaming stops, running
	// commands are killed, and what was done is reported. A second Ctrl-C
	// ends olly at once.
	runCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-runCtx.Done()
		stop()
	}()
	end := startUpOver(cfg.Paths().StateDir, "print", logger)
	code, err := printmode.Run(runCtx, printmode.Options{
		Sessions:  a.Sessions,
		Approvals: a.Approvals,
		SessionID: sess.ID,
		AfterSeq:  afterSeq,
		Input:     input,
		Output:    opts.Output,
		Stdout:    f.IO.Out,
		Stderr:    f.IO.ErrOut,
		Progress:  f.IO.StderrTTY,
		Color:     f.IO.Color,
		Terminal:  terminal,
	})
	end()
	return printExit(code, err)
}

// printPolicy is print mode's approval policy: unattended without a
// terminal; at a terminal --yes approves up to high by itself and still
// asks for critical actions.
func printPolicy(yes, atTerminal bool) approval.Policy {
	policy := approval.Policy{Unattended: !atTerminal, Yes: yes}
	if yes && atTerminal {
		policy.AutoApproveCommands, policy.AutoApproveSensitiveEdits = true, true
	}
	return policy
}

// printExit turns print mode's exit code and error into runPrint's error.
func printExit(code int, err error) error {
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			return err
		}
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}
