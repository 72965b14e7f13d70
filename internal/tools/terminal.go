package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/shell"
)

// Terminal is the run_terminal_command tool. The zero value uses the
// defaults.
type Terminal struct {
	// MaxTimeout caps the timeout a model may ask for.
	MaxTimeout time.Duration
}

func (t Terminal) withDefaults() Terminal {
	if t.MaxTimeout <= 0 {
		t.MaxTimeout = 10 * time.Minute
	}
	return t
}

// Spec implements Tool.
func (t Terminal) Spec() llm.Tool {
	t = t.withDefaults()
	lim := shell.DefaultLimits()
	return spec("run_terminal_command", map[string]any{"Timeout": "the session's time limit (agent.toolTimeout, 30 seconds by default)",
		"MaxTimeout": fmt.Sprintf("%d seconds", int(t.MaxTimeout.Seconds())), "Head": lim.Head, "Tail": lim.Tail},
		param{name: "command", typ: "string", desc: "The bash command line to run.", required: true},
		param{name: "cwd", typ: "string", desc: "Directory to run in, relative to the workspace root (default: where the previous command ended)."},
		param{name: "timeout", typ: "integer", desc: "Time limit in seconds for a command expected to run long (builds, test suites)."},
		param{name: "escalate", typ: "string", desc: "Only after the sandbox refused something this command needs: why it must run outside the sandbox. The person is asked."},
	)
}

// Run implements Tool (without asking: a command that needs approval is
// refused).
func (t Terminal) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	p, err := t.Prepare(ctx, env, args)
	return runPrepared(ctx, env, p, err)
}

// Prepare implements Gated. Read-only commands (safety.ReadOnly, with no
// finding from safety.Analyze) run without asking; everything else asks,
// at the severity the analysis found.
func (t Terminal) Prepare(ctx context.Context, env *Env, args Args) (*Prepared, error) {
	t = t.withDefaults()
	command, _ := args.String("command", "cmd")
	if strings.TrimSpace(command) == "" {
		return &Prepared{Done: errResult("run_terminal_command needs a command: the bash command line to run.")}, nil
	}
	look := event.ToolAction{Text: "Run " + shortCommand(command)}
	timeout, bad := t.timeout(args, env.ToolTimeout)
	if bad != nil {
		return &Prepared{Display: look, Done: bad}, nil
	}
	switch {
	case env.Shell == nil:
		return &Prepared{Display: look, Done: errResult("run_terminal_command is unavailable: this session has no shell.")}, nil
	case env.Workspace == nil:
		return &Prepared{Display: look, Done: noWorkspace("run_terminal_command")}, nil
	}
	cwd, cwdRel := "", ""
	if given, _ := args.String("cwd", "workdir", "directory"); strings.TrimSpace(given) != "" {
		p, err := env.Workspace.Resolve(given)
		switch {
		case err != nil:
			return &Prepared{Display: look, Done: pathError("run_terminal_command: cwd", err)}, nil
		case !p.IsDir():
			return &Prepared{Display: look, Done: errResult("run_terminal_command: cwd %s is a file, not a directory.", p.Rel)}, nil
		}
		cwd, cwdRel = p.Abs, p.Rel
		look.Detail = "in " + p.Rel
	}
	opts := t.safetyOptions(env, cwd)
	if cwdRel == "" {
		cwdRel = env.Workspace.Rel(opts.Cwd)
	}
	if cp := env.Commands; cp != nil {
		if why := cp.Allow(command); why != "" {
			return &Prepared{Display: look, Done: errResult("%s", why)}, nil
		}
	}
	check := safety.Check(command, opts)
	verdict, readOnly, why := check.Verdict, check.ReadOnly, check.Why
	if cp := env.Commands; cp != nil && (!readOnly || verdict.Severity > safety.None) {
		if readOnly {
			why = "the analysis found a risk"
			if len(verdict.Findings) > 0 {
				why = verdict.Findings[0].Reason
			}
		}
		return &Prepared{Display: look, Done: errResult("Not run: in %s mode only read-only commands may run, and this one is not: %s.", cp.Mode, why)}, nil
	}
	escalation, _ := args.String("escalate", "escalation")
	escalation = strings.TrimSpace(escalation)
	if escalation != "" && env.Sandbox.Active {
		look.Detail = strings.TrimSpace(look.Detail + " outside the sandbox")
	}
	var req *approval.Request
	if !readOnly || verdict.Severity > safety.None || (escalation != "" && env.Sandbox.Active) {
		req = &approval.Request{Kind: event.ApprovalCommand, Command: command, Cwd: cwdRel, Severity: verdict.Severity,
			Reason: "olly asks before running commands that are not read-only: " + why, Sandbox: commandSandbox(env.Sandbox, escalation)}
		if len(verdict.Findings) > 0 {
			f := verdict.Findings[0]
			req.Reason, req.Rule, req.Words = f.Reason, f.Rule, f.Words
		}
		if req.Escalates() && readOnly && verdict.Severity == safety.None {
			req.Reason = "the model asks to run this command outside the sandbox: " + escalation
		}
	}
	return &Prepared{Display: look, Approval: req, Run: func(ctx context.Context, env *Env, d approval.Decision) (*Result, error) {
		run := command
		if d.Command != "" {
			run = d.Command
		}
		return t.run(ctx, env, run, &check, cwd, timeout, runPolicy(req, d))
	}}, nil
}

// commandSandbox describes, for the approval card, where the command runs
// if approved: in the workspace-write sandbox, or outside it when the
// model asked (escalation) and a sandbox is there to leave.
func commandSandbox(info SandboxInfo, escalation string) *event.CommandSandbox {
	cs := &event.CommandSandbox{Policy: event.SandboxWorkspaceWrite, Active: info.Active, Mechanism: info.Mechanism, Network: info.Network && info.Active}
	switch {
	case !info.Active:
		cs.Policy = event.SandboxUnsandboxed
	case escalation != "":
		cs.Policy, cs.Escalation = event.SandboxUnsandboxed, escalation
	}
	return cs
}

// runPolicy is the sandbox a command runs in: read-only for what runs
// without a request (judged read-only), outside the sandbox only when a
// person said so, workspace-write for everything else that was approved.
func runPolicy(req *approval.Request, d approval.Decision) sandbox.Policy {
	switch {
	case req == nil:
		return sandbox.ReadOnly
	case d.OutsideSandbox && !d.Auto:
		return sandbox.Unsandboxed
	default:
		return sandbox.WorkspaceWrite
	}
}

// safetyOptions describe where the command will run, for the analysis.
func (t Terminal) safetyOptions(env *Env, cwd string) safety.Options {
	var opts safety.Options
	for _, r := range env.Workspace.Roots() {
		opts.Roots = append(opts.Roots, r.Path)
	}
	opts.Allowed = env.Workspace.Allowed()
	opts.Home, _ = os.UserHomeDir()
	opts.TempDirs = []string{os.TempDir()}
	opts.Cwd = cwd
	if cwd == "" {
		if s, ok := env.Shell.(interface{ Cwd() string }); ok {
			opts.Cwd = s.Cwd()
		}
	}
	if opts.Cwd == "" {
		opts.Cwd = opts.Roots[0]
	}
	return opts
}

// timeout reads the timeout argument: seconds (a number of 1000 or more is
// taken as milliseconds, which some models send) or a duration such as
// "2m", capped at MaxTimeout. Zero means the session's default.
func (t Terminal) timeout(args Args, def time.Duration) (time.Duration, *Result) {
	s, ok := args.String("timeout", "timeoutSeconds", "timeout_seconds")
	s = strings.TrimSpace(s)
	if !ok || s == "" {
		return def, nil
	}
	var d time.Duration
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n >= 1000 {
			n /= 1000
		}
		d = time.Duration(n * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, errResult("run_terminal_command: timeout must be a number of seconds, got %q.", s)
	}
	if d <= 0 {
		return 0, errResult("run_terminal_command: timeout must be positive, got %q.", s)
	}
	return min(max(d, time.Second), t.MaxTimeout), nil
}

// run runs command; check is the check of the command the model asked
// for, which a person may have edited into command.
func (t Terminal) run(ctx context.Context, env *Env, command string, check *safety.Checked, cwd string, timeout time.Duration, policy sandbox.Policy) (*Result, error) {
	// Live output is sanitized like the final output, so every frontend
	// can print it as plain text.
	san := shell.NewSanitizer(func(text []byte) { _ = env.Report.Output(ctx, string(text)) })
	res, err := env.Shell.Run(ctx, command, shell.RunOptions{Cwd: cwd, Timeout: timeout, Policy: policy, Writable: env.Workspace.Dirs(), Check: check,
		OnOutput: func(b []byte) { _, _ = san.Write(b) }})
	san.Close()
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, shell.ErrClosed):
		return errResult("The command was not run: the session's shell is closed."), nil
	case err != nil:
		return nil, fmt.Errorf("run command: %w", err)
	}
	text := artifactRefs(env, res.Text(), res)
	if command != check.Command {
		text = "The person edited the command before approving it; it ran as:\n$ " + command + "\n\n" + text
	}
	look := event.ToolAction{Text: "Ran " + shortCommand(command), Detail: outcome(res), Output: artifactRefs(env, res.Output, res), Artifact: res.Artifact}
	return &Result{Content: text, IsError: res.Rejected != "" || res.TimedOut || res.Canceled, Display: look}, nil
}

// artifactRefs names the command's artifact files as artifact:// paths,
// which read_file pages through.
func artifactRefs(env *Env, text string, res *shell.Result) string {
	for _, p := range []string{res.Artifact, res.BackgroundLog} {
		if p != "" && env.ArtifactDir != "" && filepath.Dir(p) == filepath.Clean(env.ArtifactDir) {
			text = strings.ReplaceAll(text, p, artifactRef(p))
		}
	}
	return text
}

// outcome is the action's detail: how the command ended.
func outcome(r *shell.Result) string {
	switch {
	case r.Rejected != "":
		return "not run"
	case r.TimedOut:
		return "timed out after " + r.Timeout.String()
	case r.Canceled:
		return "canceled"
	case r.OutputCapped:
		return "stopped: too much output"
	case r.Signal != "":
		return "ended by " + r.Signal
	}
	return fmt.Sprintf("exit %d · %s", r.ExitCode, r.Duration.Round(time.Millisecond))
}

// shortCommand is a command's first line, cut for an action line.
func shortCommand(c string) string {
	c = strings.TrimSpace(c)
	if i := strings.IndexByte(c, '\n'); i >= 0 {
		c = c[:i] + " …"
	}
	if len(c) > 80 {
		cut := 80
		for cut > 0 && c[cut]&0xC0 == 0x80 {
			cut--
		}
		c = c[:cut] + "…"
	}
	return "`" + c + "`"
}
