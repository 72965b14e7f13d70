package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/toolcall"
	"github.com/olly-agent/olly/internal/tools"
)

// Deps are the agent's dependencies.
type Deps struct {
	// Provider is the model server (required).
	Provider llm.Provider
	// Tools holds the tools (required; may be empty).
	Tools *tools.Registry
	// Config are the agent's settings.
	Config Config
	// ToolEnv builds the tool environment of a turn (approver, shell,
	// checkpoints…); the agent fills in Session, Turn, Workspace and Emit.
	// Nil: tools get only those.
	ToolEnv func(ctx context.Context, t *session.Turn) (tools.Env, error)
	// Diagnostics checks the files a run changed before it may finish;
	// nil: there is no diagnostics source, and the agent says so.
	Diagnostics Diagnostics
	// Clock drives the streaming throttle and durations; nil: the system
	// clock.
	Clock Clock
	// GOOS names the operating system in the system prompt (empty:
	// runtime.GOOS); Shell names the shell commands run in ("" leaves it
	// out).
	GOOS  string
	Shell string
	// Log receives what the person is not shown (a compaction that
	// failed, stored session memory that was invalid); nil discards it.
	Log *slog.Logger
	// VisionModels names the models that can read images, for the error
	// a prompt with images gets on a model that cannot (images.go).
	VisionModels VisionModels
	// Hooks returns the hooks of a turn's workspace (*hooks.Runner), for
	// the PreCompact hooks of /compact, which runs without a tool
	// environment; nil: none.
	Hooks func(t *session.Turn) any
}

// Agent runs agent-mode turns. It is safe for concurrent use by several
// sessions.
type Agent struct {
	// set is the model server and the settings turns start with
	// (setup.go); Reconfigure replaces it.
	set     atomic.Pointer[setup]
	tools   *tools.Registry
	toolEnv func(ctx context.Context, t *session.Turn) (tools.Env, error)
	diag    Diagnostics
	clock   Clock
	goos    string
	shell   string
	prompts *template.Template
	project projectCache // project context per session (projectctx.go)
	log     *slog.Logger // compaction and memory problems (compact_state.go)
	vision  VisionModels
	hooksOf func(t *session.Turn) any

	mu     sync.Mutex
	warned map[string]bool // session+model pairs told about text tool calls
	// ratios are the token-estimate calibrations learned per model
	// (server count / estimate), so a turn starts calibrated.
	ratios map[string]float64
	// noAutoCompact holds the sessions whose automatic compaction a
	// frontend turned off (SetAutoCompaction); it lasts as long as olly
	// runs, like pi's setting.
	noAutoCompact map[string]bool
	// hookStart: per session this olly ran a turn of, what its next turn
	// starts from for the SessionStart hooks ("": nothing new;
	// hooks_events.go).
	hookStart map[string]string
	// thinking holds the sessions' thinking levels a frontend set
	// (thinking.go); it lasts as long as olly runs.
	thinking map[string]string
	// retry: the sessions' auto-retry switches (retry.go).
	retry retrySwitch
}

// New builds an agent.
func New(d Deps) (*Agent, error) {
	if d.Provider == nil {
		return nil, errors.New("agent: no model provider")
	}
	if d.Tools == nil {
		return nil, errors.New("agent: no tool registry")
	}
	prompts, err := parsePrompts()
	if err != nil {
		return nil, err
	}
	a := &Agent{tools: d.Tools, toolEnv: d.ToolEnv,
		diag: d.Diagnostics, clock: d.Clock, goos: d.GOOS, shell: d.Shell, prompts: prompts, log: d.Log, vision: d.VisionModels, hooksOf: d.Hooks,
		warned: map[string]bool{}}
	a.set.Store(newSetup(d.Provider, d.Config))
	if a.clock == nil {
		a.clock = realClock{}
	}
	if a.goos == "" {
		a.goos = runtime.GOOS
	}
	return a, nil
}

// run is one turn in progress.
type run struct {
	a   *Agent
	t   *session.Turn
	set *setup // the server and settings the turn started with (setup.go)
	cfg Config // the turn's copy of set.cfg, with its mode's settings

	model   string
	user    event.UserMessage
	system  string
	offered map[string]bool // the names of the tools offered (req.specs)
	env     tools.Env

	turnSeq int64 // seq of turn_started: makes group, action and call ids unique
	iter    int
	batches toolRunner // runs the tool batches, keeps what they did (toolrunner.go)
	gates   gates      // the completion decision (gates.go)
	routing            // mode, dispatch, sub-agent depth, prompt additions (modes.go)

	cs    contextState   // session memory, token estimates, compaction (compact_state.go)
	req   requestBuilder // the requests and the automatic compaction (request.go)
	hooks hookState      // hooks.go

	final    string
	status   string
	errText  string
	finished bool

	// errMu guards err: tools may emit from their own goroutines (live
	// command output).
	errMu sync.Mutex
	err   error // first event that could not be recorded: the turn stops

	// attachWarnings say which @mentions could not be attached; they are
	// shown after the user message.
	attachWarnings []string
}

// failure returns the first event that could not be recorded, if any.
func (r *run) failure() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

func (r *run) setFailure(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
}

// newRun checks the prompt and prepares the turn. Nothing is emitted yet,
// so a refused prompt leaves no trace.
func (a *Agent) newRun(ctx context.Context, t *session.Turn) (*run, error) {
	m, err := modeNamed(t.Mode)
	if err != nil {
		return nil, err
	}
	set := a.using(ctx)
	r := &run{a: a, t: t, set: set, cfg: set.cfg}
	r.model = r.cfg.forMode(m.name, t.Input.Model, cmp.Or(t.Model, set.cfg.Model)) // chatMode.*, planMode.*
	if r.model == "" {
		return nil, errors.New("no model is configured: set one with `olly config set agentMode.model <name>` or pass --model (`olly models` lists them)")
	}
	r.user, r.attachWarnings = attacher{ws: t.Workspace, maxBytes: r.cfg.MaxAttachmentBytes}.userMessage(t.Input)
	r.gates = gates{diag: a.diag}
	env := tools.Env{}
	if a.toolEnv != nil {
		if env, err = a.toolEnv(ctx, t); err != nil {
			return nil, fmt.Errorf("prepare the tools: %w", err)
		}
	}
	// Last, since it may ask the model (the dispatcher, modes.go): the
	// mode's tools, cap and write check.
	r.route(ctx, m)
	env.Session, env.Turn, env.Workspace = t.SessionID, t.Number, t.Workspace
	env.Emit = r.emit
	r.useEnv(env)
	r.offerExternal(ctx)
	r.prestartShell()
	r.batches = r.newToolRunner()
	if err := r.promptHooks(ctx); err != nil {
		return nil, err
	}
	// Language servers belong to a workspace: when the turn's diagnostics
	// source can also check files, the completion gate uses it.
	if d, ok := env.Diagnostics.(Diagnostics); ok {
		r.gates.diag = d
	}
	r.bindRequests()
	return r, nil
}

// begin opens the turn: turn_started and the user message, then what the
// model can do. It reports false when the turn already ended (the model is
// unusable).
func (r *run) begin(ctx context.Context) bool {
	ev, err := r.t.Emit(context.WithoutCancel(ctx), event.TurnStarted{Mode: r.mode.name, Model: r.model, Dispatch: r.dispatch})
	if err != nil {
		r.setFailure(err)
		return false
	}
	r.turnSeq = ev.Seq
	if r.turnSeq == 0 {
		r.turnSeq = int64(r.t.Number) // detached turns: nothing stored
	}
	if r.emit(ctx, r.user) != nil {
		return false
	}
	for _, w := range r.attachWarnings {
		_ = r.emit(ctx, event.Warning{Code: "attachment", Message: w})
	}
	r.emitPromptHookRuns(ctx)
	d, err := r.a.modelDetails(ctx, r.model)
	if err != nil {
		if ctx.Err() != nil {
			r.finish(ctx, event.FinishCanceled)
		} else {
			r.fail(ctx, err)
		}
		return false
	}
	// A server that reports no capabilities (OpenAI-compatible, not
	// Ollama) gets the images: it answers for itself.
	r.cs.numCtx, r.cs.maxTokens, r.req.think = r.cfg.numCtx(r.model, d), r.cfg.MaxTokens, r.a.thinkFor(r.set, r.t.SessionID, d) // thinking.go
	r.req.vision = d.Capabilities.Vision || !d.Capabilities.Known
	if hasImages(r.user) && !r.req.vision {
		// The prompt stays in the log and the prompt history.
		r.fail(ctx, r.noVision(ctx))
		return false
	}
	r.req.dialect = toolcall.TemplateDialect(d.Template)
	r.req.useFormat(session.FormatNative)
	if !d.Capabilities.Tools {
		r.req.useFormat(session.FormatText)
		r.warnTextTools(ctx)
	}
	if r.system, err = r.systemPrompt(); err != nil {
		r.fail(ctx, err)
		return false
	}
	r.startContext() // compact_state.go: session memory, token estimates
	return r.failure() == nil
}

func (r *run) warnTextTools(ctx context.Context) {
	key := r.t.SessionID + "\x00" + r.model
	r.a.mu.Lock()
	seen := r.a.warned[key]
	r.a.warned[key] = true
	r.a.mu.Unlock()
	if !seen {
		_ = r.emit(ctx, event.Warning{Code: "text_tools",
			Message: fmt.Sprintf("model %s does not support native tool calling — olly uses text tool calls, which smaller models follow less reliably", r.model)})
	}
}

// emit publishes an event of the turn. Recording is not canceled with the
// turn: what happened until the cancellation must be in the log, and the
// turn still ends with turn_finished. The first durable event that cannot
// be stored stops the turn: continuing would show the person what history
// will not have.
func (r *run) emit(ctx context.Context, p event.Payload) error {
	if err := r.failure(); err != nil {
		return err
	}
	// A context that can never be canceled (no Done channel: one from
	// WithoutCancel, as most callers pass) is used as it is.
	if ctx.Done() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	_, err := r.t.Emit(ctx, p)
	if err != nil && event.Durable(p.EventType()) {
		r.setFailure(err)
	}
	if err == nil {
		r.observe(p) // compact_state.go: session memory notes from calls and results
	}
	return err
}

// stream runs one iteration's request (stream.go): built and fitted to the
// window by the request builder (request.go), sent again when the server
// refused tools (model.go: text tool calls from now on) or the prompt did
// not fit after all (request.go: compacted, once).
func (r *run) stream(ctx context.Context) *streamResult {
	s := &streamer{provider: r.set.provider, clock: r.a.clock, emit: r.emit, iter: r.iter, known: r.offered,
		text: func() (toolcall.Format, map[string]map[string]string) { return r.req.textDialect(), r.req.params }}
	ctx = r.withRetryHooks(ctx) // retry.go: retries become model_retry events
	res := s.send(ctx, func() *llm.ChatRequest { return r.req.prepare(ctx, r.iter) },
		func(res *streamResult) bool { return r.toolsRefused(ctx, res) || r.req.overflowed(ctx, r.iter, res) })
	res.explain = r.explain
	return res
}

// recordResponse closes the iteration for the person and the history: the
// assistant message (text shown, history content, calls) and the token
// count. A final answer's text moves to the final message, so it renders
// once, after the tool blocks.
func (r *run) recordResponse(ctx context.Context, res *streamResult, calls []call, final bool) {
	text := strings.TrimSpace(res.display)
	msg := event.AssistantMessage{Iteration: r.iter, Text: text, Content: text, Model: r.model}
	for _, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, c.ToolCall)
	}
	if msg.Content == "" {
		msg.Content = emptyContent(msg.ToolCalls, res.thinking)
	}
	if final {
		r.final, msg.Text = text, ""
	}
	if r.emit(ctx, msg) != nil {
		return
	}
	_ = r.emit(ctx, r.usage(res))
}

// interrupted ends a turn whose stream was canceled or failed: what was
// shown is recorded, then the error, then the end.
func (r *run) interrupted(ctx context.Context, res *streamResult) (*session.TurnResult, error) {
	keep := context.WithoutCancel(ctx)
	if text := strings.TrimSpace(res.display); text != "" {
		_ = r.emit(keep, event.AssistantMessage{Iteration: r.iter, Text: text, Content: text, Model: r.model})
	}
	if res.canceled || ctx.Err() != nil {
		return r.finish(ctx, event.FinishCanceled)
	}
	return r.fail(ctx, res.err)
}

// fail ends the turn with an error event naming the fix (the llm errors
// say it) and turn_finished{failed}.
func (r *run) fail(ctx context.Context, err error) (*session.TurnResult, error) {
	r.errText = err.Error()
	kind := ""
	if k := llm.KindOf(err); k != llm.KindUnknown {
		kind = k.String()
	}
	_ = r.emit(context.WithoutCancel(ctx), event.Error{Message: r.errText, Kind: kind})
	return r.finish(ctx, event.FinishFailed)
}

// finish emits turn_finished (once).
func (r *run) finish(ctx context.Context, status string) (*session.TurnResult, error) {
	if !r.finished {
		r.finished, r.status = true, status
		iters := min(r.iter, r.cfg.MaxIterations)
		_ = r.emit(context.WithoutCancel(ctx), event.TurnFinished{Status: status, Iterations: iters, Error: r.errText})
	}
	return r.result()
}

func (r *run) result() (*session.TurnResult, error) {
	res := &session.TurnResult{Turn: r.t.Number, Status: r.status, Iterations: min(r.iter, r.cfg.MaxIterations),
		FinalText: r.final, Error: r.errText, FilesChanged: append([]string(nil), r.batches.files...),
		Memory: r.memoryJSON()} // compact_state.go: stored on the session row
	if err := r.failure(); err != nil {
		return res, fmt.Errorf("turn %d: %w", r.t.Number, err)
	}
	return res, nil
}
