package agent

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// contextState is a run's context management: the context window, the
// session memory and its block in the system prompt, the token estimates
// (counted once per string, usage_estimate.go) and their calibration with
// the server's counts, and the compaction bookkeeping. Its own methods
// size requests (estimate, promptLimit, trimResults in fit.go) and read
// the server's counts (usage); the loop reaches it through a few one-line
// hooks (startContext, observe, systemMessage, usage, memoryJSON), and the
// request builder (request.go) through the pointer it is bound to.
type contextState struct {
	// mu guards memory and obs: tools may emit from their own goroutines.
	mu     sync.Mutex
	memory *sessionMemory
	obs    memoryObserver
	// block is the memory block in the system prompt: a snapshot taken
	// when the turn starts and after each compaction, not at every
	// iteration. Ollama reuses the KV cache for the prompt's unchanged
	// prefix; a system prompt that changed at every iteration would make
	// the server evaluate the whole conversation again each time (seconds
	// to minutes on local hardware). Within a turn the model sees its own
	// calls anyway; the notes matter once history is summarised, and in
	// the next turn.
	block string

	// last is the estimate of the request last sent; ratio the server's
	// count divided by the estimate for the last request it counted (0:
	// none yet this turn).
	last  requestEstimate
	ratio float64
	// numCtx is the context window requested (num_ctx); maxTokens the
	// answer's limit (agentMode.maxTokens, 0: none).
	numCtx    int
	maxTokens int
	// textTools estimates the tool descriptions inside a text-format
	// system prompt (a category of their own); instructions the
	// instruction block (extend.go), another.
	textTools    int
	instructions int
	// tokens counts each string the requests carry once
	// (usage_estimate.go); sys is the system message last built from the
	// prompt and the memory block (systemMessage). Only the loop's
	// goroutine uses them.
	tokens tokenCache
	// counted are the last request's messages with their estimates
	// (usage_positions.go).
	counted countedMessages
	sys     struct{ system, block, message string }
	// serverCut: the server's count of the last prompt says it cut the
	// prompt to fit (see trusted); the next request is compacted first.
	serverCut bool
	// cutCount is that count: the prompt was at least that large.
	cutCount int
}

// Calibration bounds: a server count far from the estimate is more likely
// a truncated prompt or a missing count than a tokenizer that different.
const (
	minRatio = 0.25
	maxRatio = 4.0
)

// calibrated turns an estimate into the best guess of the real count.
func (cs *contextState) calibrated(est int) int {
	if cs.ratio <= 0 {
		return est
	}
	return int(float64(est)*cs.ratio + 0.5)
}

// calibrate learns from the server's count of the request estimated as
// est.
func (cs *contextState) calibrate(real, est int) {
	if real <= 0 || est <= 0 {
		return
	}
	cs.ratio = min(max(float64(real)/float64(est), minRatio), maxRatio)
}

// uncalibratedMargin is how much larger than the raw estimate a prompt is
// assumed to be before the server has counted one: the estimator is a
// heuristic, a few tens of percent off for some text.
const uncalibratedMargin = 1.25

// calibratedMargin covers what one ratio for the whole prompt misses: the
// server's tokenizer differs from the estimate more on some text (JSON
// schemas, code) than on other, and compaction changes the mix.
const calibratedMargin = 1.1

// fitSize is the size assumed when checking that a request fits: the
// calibrated estimate with a margin, or the raw one with a larger margin
// before calibration.
func (cs *contextState) fitSize(est int) int {
	if cs.ratio <= 0 {
		return int(float64(est)*uncalibratedMargin + 0.5)
	}
	return int(float64(est)*cs.ratio*calibratedMargin + 0.5)
}

// trusted reports whether the server's prompt count can calibrate the
// estimates. A count equal to what a server keeps when it cuts a prompt to
// fit num_ctx (llama-server keeps about half the window) or to the whole
// window, or well below an estimate that could not have fit the window,
// means the server truncated the prompt: it counts what the model was
// given, not what was sent.
func (cs *contextState) trusted(real, est, numCtx int) bool {
	if real <= 0 || est <= 0 {
		return false
	}
	if numCtx > 0 && (real == numCtx-max((numCtx-4)/2, 1) || real >= numCtx-1) {
		return false
	}
	return float64(real) >= float64(est)*wellBelow || cs.fitSize(est) < numCtx
}

// wellBelow is the share of the estimate under which a server's count is
// taken for a truncated prompt: the estimator errs high on code, but not
// by a third.
const wellBelow = 0.66

// snapshot copies the notes, for readers outside the lock (the fallback
// summary); nil before the turn started.
func (cs *contextState) snapshot() *sessionMemory {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.memory == nil {
		return nil
	}
	c := &sessionMemory{Version: cs.memory.Version, Task: cs.memory.Task}
	c.merge(cs.memory)
	return c
}

// refreshBlock takes a new snapshot of the memory block.
func (cs *contextState) refreshBlock() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.memory != nil {
		cs.block = cs.memory.block()
	}
}

// startContext sets the run's context management up once the system
// prompt is known: the session memory restored from the session row, the
// new task and the preferences stated in it (the person's turns only), the
// block snapshot.
func (r *run) startContext() {
	mem := r.a.loadMemory(r.t.SessionID, r.t.Memory)
	mem.setTask(r.t.Input.Text)
	if r.depth == 0 {
		// Only the person states preferences: a sub-agent's task is
		// written by the orchestrating model.
		for _, p := range preferences(r.t.Input.Text) {
			mem.addEntry(memPreference, p)
		}
	}
	r.cs.mu.Lock()
	r.cs.memory, r.cs.obs = mem, memoryObserver{mem: mem}
	r.cs.mu.Unlock()
	r.cs.refreshBlock()
	r.cs.instructions = r.instructionTokens()
	if r.req.format == session.FormatText {
		r.cs.textTools = estimateTools(nil, r.req.specs)
	}
	// The calibration learned in earlier turns with this model: the
	// first request of a turn need not rely on the raw estimate.
	r.cs.ratio = r.a.modelRatio(r.model)
}

// observe feeds a recorded event to the session memory.
func (r *run) observe(p event.Payload) {
	switch p.(type) {
	case event.AssistantMessage, event.ToolResult:
	default:
		return
	}
	r.cs.mu.Lock()
	defer r.cs.mu.Unlock()
	if r.cs.memory != nil {
		r.cs.obs.observe(p)
	}
}

// systemMessage is the system prompt as sent: the rendered prompt, then
// the session memory block. It is built again only when either changed,
// so every request carries the same string and its estimate is counted
// once (tokenCache). The loop's goroutine alone calls it.
func (r *run) systemMessage() string {
	r.cs.mu.Lock()
	block := r.cs.block
	r.cs.mu.Unlock()
	if block == "" {
		return r.system
	}
	s := &r.cs.sys
	if s.message == "" || s.system != r.system || s.block != block {
		s.system, s.block, s.message = r.system, block, r.system+"\n\n"+block
	}
	return s.message
}

// memoryJSON is the session memory to store on the session row (nil
// before the turn started: the stored memory stays).
func (r *run) memoryJSON() json.RawMessage {
	r.cs.mu.Lock()
	defer r.cs.mu.Unlock()
	if r.cs.memory == nil {
		return nil
	}
	return r.cs.memory.toJSON()
}

// absorbMemory merges a sub-agent's notes into this run's: in agent mode
// the orchestrator reads through sub-agents, so the files they read and
// the functions they explored are what the session should remember. The
// sub-agent's task is not taken (this run's task stays), and neither are
// preferences: a sub-agent's prompt is the orchestrating model's words, not
// the person's.
func (r *run) absorbMemory(sub *sessionMemory) {
	if sub == nil || sub.empty() {
		return
	}
	r.cs.mu.Lock()
	defer r.cs.mu.Unlock()
	if r.cs.memory == nil {
		return
	}
	for _, c := range sub.categories() {
		if c.cat == memPreference {
			continue
		}
		for _, x := range c.list {
			r.cs.memory.addEntry(c.cat, x)
		}
	}
}

// loadMemory restores stored notes; invalid ones are logged and ignored
// (memory is an aid: it never stops a turn).
func (a *Agent) loadMemory(sessionID string, raw json.RawMessage) *sessionMemory {
	mem, err := memoryFromJSON(raw)
	if err != nil {
		a.logger().Warn("session memory ignored", "session", sessionID, "error", err)
	}
	return mem
}

// logger returns the agent's logger, or one that discards.
func (a *Agent) logger() *slog.Logger {
	if a.log != nil {
		return a.log
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
