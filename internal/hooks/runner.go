package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/trust"
)

// Trust answers whether a project file's hooks were trusted
// (*trust.Store).
type Trust interface {
	Trusted(workspace, kind, name, fingerprint string) bool
}

// Options build a Runner.
type Options struct {
	// Files are the hook files (Load).
	Files []File
	// Workspace is the workspace root: the hooks' working directory and
	// the key of project trust.
	Workspace string
	// Trust decides which project files' hooks run; nil: none do.
	Trust Trust
	// Env is the hooks' environment: the shell's clean one
	// (shell.EnvPolicy.CommandEnviron); hooks add CLAUDE_PROJECT_DIR,
	// OLLY_PROJECT_DIR and OLLY_HOOK_EVENT.
	Env []string
	// Start starts a hook's process (the sandbox); nil: unconfined.
	Start Starter
}

// Runner runs the hooks of one workspace. It is safe for concurrent use.
type Runner struct {
	hooks     []Hook
	untrusted []Untrusted
	// project are the trusted project files by Source: each is checked
	// again right before its hooks run (recheck).
	project   map[string]File
	trust     Trust
	workspace string
	env       []string
	start     Starter
}

// Untrusted is a project hook file that does not run, with the fingerprint
// it was refused under.
type Untrusted struct {
	File
	Fingerprint string
}

// New keeps the user's hooks and the project hooks a person trusted; the
// others are listed by Untrusted and never run.
func New(o Options) *Runner {
	r := &Runner{workspace: o.Workspace, env: o.Env, start: o.Start, trust: o.Trust}
	for _, f := range o.Files {
		if f.Project {
			fp := f.Fingerprint()
			if !trustedAs(o.Trust, o.Workspace, f, fp) {
				r.untrusted = append(r.untrusted, Untrusted{f, fp})
				continue
			}
			if r.project == nil {
				r.project = map[string]File{}
			}
			r.project[f.Source] = f
		}
		r.hooks = append(r.hooks, f.Hooks...)
	}
	return r
}

// IsTrusted says whether a project file's hooks, exactly as they are now,
// were trusted in workspace. User files need no trust.
func IsTrusted(t Trust, workspace string, f File) bool {
	if !f.Project {
		return true
	}
	return trustedAs(t, workspace, f, f.Fingerprint())
}

func trustedAs(t Trust, workspace string, f File, fingerprint string) bool {
	return t != nil && t.Trusted(workspace, trust.KindHook, f.Source, fingerprint)
}

// Untrusted are the project hook files that do not run until trusted.
func (r *Runner) Untrusted() []Untrusted { return r.untrusted }

// recheck says whether the project hooks of source may run now: the
// Runner lives for a turn, during which the model can edit the scripts a
// hook runs, so each project file's trust is checked again, once per
// event, right before its hooks run. User hooks need no check. checked
// holds this event's answers; reason says why not.
func (r *Runner) recheck(h Hook, checked map[string]bool) (ok bool, reason string) {
	if !h.Project {
		return true, ""
	}
	ok, done := checked[h.Source]
	if !done {
		f, known := r.project[h.Source]
		ok = known && IsTrusted(r.trust, r.workspace, f)
		checked[h.Source] = ok
	}
	if ok {
		return true, ""
	}
	return false, "not run: " + h.Source + " or a project file its hooks run changed during this turn, after it was trusted; review it with `olly hooks list` and trust it again with `olly hooks trust`"
}

// Has says whether any hook runs on ev.
func (r *Runner) Has(ev string) bool {
	if r == nil {
		return false
	}
	for _, h := range r.hooks {
		if h.Event == ev {
			return true
		}
	}
	return false
}

// Result is what an event's hooks decided.
type Result struct {
	// Blocked: at least one hook blocked (exit code 2, or a JSON decision
	// to block or deny); Reason holds their reasons.
	Blocked bool
	Reason  string
	// Context is additional context for the model (additionalContext, or
	// the plain stdout of UserPromptSubmit and SessionStart hooks).
	Context string
	// Runs are the hook_run events to emit, one per hook run.
	Runs []event.HookRun
}

// Run runs the hooks of ev that match tool (olly's name; "" for events
// without a tool) one after another, each given input plus the common
// fields on stdin.
func (r *Runner) Run(ctx context.Context, ev, session, tool string, input map[string]any) Result {
	if tool == "" {
		return r.run(ctx, ev, session, target{}, input)
	}
	return r.run(ctx, ev, session, target{olly: tool, claude: ClaudeName(tool), tool: true}, input)
}

// RunMatching runs the hooks of ev whose matcher matches what (a
// SessionStart source, a PreCompact trigger).
func (r *Runner) RunMatching(ctx context.Context, ev, session, what string, input map[string]any) Result {
	return r.run(ctx, ev, session, target{olly: what, claude: what}, input)
}

// target is what a hook's matcher is matched against: a tool (both its
// names), a SessionStart source or PreCompact trigger, or nothing (the
// events whose matcher is ignored).
type target struct {
	olly, claude string
	tool         bool
}

func (r *Runner) run(ctx context.Context, ev, session string, what target, input map[string]any) Result {
	var res Result
	if r == nil {
		return res
	}
	var reasons, contexts []string
	checked := map[string]bool{}
	for _, h := range r.hooks {
		if h.Event != ev || (what.olly != "" && !h.Matches(what.olly, what.claude)) {
			continue
		}
		if ok, why := r.recheck(h, checked); !ok {
			run := event.HookRun{Event: ev, Command: h.Command, Source: h.Source, ExitCode: -1, Reason: why}
			if what.tool {
				run.Tool = what.claude
			}
			res.Runs = append(res.Runs, run)
			continue
		}
		in := map[string]any{"session_id": session, "transcript_path": "", "cwd": r.workspace, "hook_event_name": ev}
		for k, v := range input {
			in[k] = v
		}
		data, err := json.Marshal(in)
		if err != nil {
			data = []byte("{}")
		}
		data = append(data, '\n') // one line: `read line` and jq both work
		env := append(append([]string{}, r.env...), "CLAUDE_PROJECT_DIR="+r.workspace, "OLLY_PROJECT_DIR="+r.workspace, "OLLY_HOOK_EVENT="+ev)
		o := execHook(ctx, h, r.workspace, env, r.start, data)
		d := interpret(ev, o)
		run := event.HookRun{Event: ev, Command: h.Command, Source: h.Source, ExitCode: o.exitCode,
			DurationMs: o.dur.Milliseconds(), Blocked: d.blocked, TimedOut: o.timedOut}
		if what.tool {
			run.Tool = what.claude
		}
		switch {
		case d.blocked:
			run.Reason = d.reason
			reasons = append(reasons, d.reason)
			res.Blocked = true
		case d.warning != "":
			run.Reason = d.warning
		}
		if d.context != "" {
			contexts = append(contexts, d.context)
		}
		res.Runs = append(res.Runs, run)
	}
	res.Reason = clip(strings.Join(reasons, "\n"))
	res.Context = clip(strings.Join(contexts, "\n"))
	return res
}

// decision is one hook run's verdict.
type decision struct {
	blocked bool
	reason  string
	context string
	warning string
}

// output is the JSON a hook may print on exit code 0 (Claude Code's
// fields that olly honours).
type output struct {
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	Decision   string `json:"decision"`
	Reason     string `json:"reason"`
	Specific   struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// interpret applies the exit-code contract: 2 blocks with stderr as the
// reason, 0 goes on (reading the JSON decision, if any), anything else is
// a warning and goes on. A hook that could not start or timed out is a
// warning: a broken hook must not stop the person's work.
func interpret(ev string, o outcome) decision {
	switch {
	case o.err != nil:
		return decision{warning: "the hook could not start: " + o.err.Error()}
	case o.timedOut:
		return decision{warning: "the hook timed out and was killed"}
	case o.exitCode == 2:
		reason := strings.TrimSpace(o.stderr)
		if reason == "" {
			reason = "blocked by a " + ev + " hook (it gave no reason on stderr)"
		}
		if !canBlock(ev) {
			// Nothing to block at session start or before a compaction:
			// the person sees it.
			return decision{warning: clip(reason)}
		}
		return decision{blocked: true, reason: clip(reason)}
	case o.exitCode != 0:
		return decision{warning: clip(fmt.Sprintf("exit code %d: %s", o.exitCode, strings.TrimSpace(o.stderr)))}
	}
	return fromStdout(ev, strings.TrimSpace(o.stdout))
}

// fromStdout reads an exit-0 hook's stdout: Claude Code's JSON, or for
// UserPromptSubmit and SessionStart plain text that becomes context.
func fromStdout(ev, stdout string) decision {
	var out output
	if !strings.HasPrefix(stdout, "{") || json.Unmarshal([]byte(stdout), &out) != nil {
		if ev == UserPromptSubmit || ev == SessionStart {
			return decision{context: clip(stdout)}
		}
		return decision{}
	}
	d := decision{context: clip(out.Specific.AdditionalContext)}
	switch {
	case out.Continue != nil && !*out.Continue && ev != Stop && ev != SubagentStop:
		d.blocked, d.reason = true, firstOf(out.StopReason, out.Reason, "a "+ev+" hook said not to continue")
	case out.Decision == "block":
		d.blocked, d.reason = true, firstOf(out.Reason, "blocked by a "+ev+" hook")
	case ev == PreToolUse && out.Specific.PermissionDecision == "deny":
		d.blocked, d.reason = true, firstOf(out.Specific.PermissionDecisionReason, out.Reason, "denied by a PreToolUse hook")
	}
	if !canBlock(ev) {
		d.blocked = false // nothing to block
	}
	if ev == PreCompact {
		d.context = "" // nothing to add it to: Claude Code shows it only
	}
	d.reason = clip(d.reason)
	return d
}

// canBlock says whether a hook of ev can block what happens (SessionStart
// and PreCompact hooks cannot: their exit code 2 is shown only).
func canBlock(ev string) bool { return ev != SessionStart && ev != PreCompact }

func firstOf(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// clip bounds text passed on to the model or the person.
func clip(s string) string {
	if len(s) <= maxReason {
		return s
	}
	return strings.ToValidUTF8(s[:maxReason], "") + "\n[truncated]"
}

// Notices are what the person should know about hooks that do not run:
// project hook files not trusted (or changed since they were trusted),
// one per file and version of it.
func (r *Runner) Notices() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, f := range r.untrusted {
		// The fingerprint is part of the text: the agent shows each notice
		// once per session, and a changed file is news again.
		fp := f.Fingerprint
		out = append(out, fmt.Sprintf("The project's hooks in %s are not trusted (or changed since; fingerprint %.12s), so they do not run. Review them with `olly hooks list` and trust them with `olly hooks trust`.", f.Source, fp))
	}
	return out
}
