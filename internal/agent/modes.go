package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/tools"
)

// maxSubagentDepth is how deep sub-agents nest: the orchestrator's
// sub-agents are at depth 1, and a deep-explore sub-agent may start
// sub-agents of its own at depth 2, which may not.
const maxSubagentDepth = 2

// readOnlyTools are the tools of every read-only mode, when registered:
// reading, listing, finding and searching files, diagnostics, and the
// eight code-intelligence tools.
func readOnlyTools() []string {
	return append([]string{"read_file", "list_files", "find_files", "search_workspace", "get_diagnostics"}, lspTools()...)
}

// lspTools are the eight code-intelligence tools.
func lspTools() []string {
	return []string{"get_document_symbols", "find_definition", "find_references", "find_implementations",
		"find_symbol", "get_hover_info", "get_call_hierarchy", "get_type_hierarchy"}
}

// routing is how a run works, beyond the loop's own state: its mode, the
// dispatcher's classification, its place among sub-agents and what its
// prompt adds (modes.go, dispatch.go, subagent.go, projectctx.go,
// scratch.go).
type routing struct {
	mode     mode
	dispatch *event.Dispatch
	// depth is 0 for a turn of the person, 1 for its sub-agents, 2 for
	// theirs.
	depth int
	// idBase makes the run's group and action ids unique in the session
	// ("" uses turn_started's seq; sub-agents use their wrapper group).
	idBase string
	// hint is a sub-agent's focus area (run_subagent's context_hint).
	hint string
	// project is the project context block (read-only modes, sub-agents).
	project string
	// scratch is the session's scratch directory ("" when none).
	scratch string
	// ext is what the person and the project add to the prompt, read
	// once per turn and shared with its sub-agents (extend.go).
	ext *extensions
}

// ids is the run's id base.
func (r *run) ids() string {
	if r.idBase != "" {
		return r.idBase
	}
	return strconv.FormatInt(r.turnSeq, 10)
}

// mode is one row of the mode table. Every mode (event.ModeAgent,
// event.ModePlan…) runs the same loop (agent.go); a mode is data: its
// tools, its prompt, its iteration cap and which gates apply (seed 000,
// "AgentExploreExecutor").
type mode struct {
	name event.Mode
	// maxIter caps the mode's iterations; agent.maxIterations caps them
	// too. 0: agent.maxIterations alone.
	maxIter int
	// orchestrator: agent mode — Config.Tools, the dispatcher, the
	// scratch directory, no project context (sub-agents read it).
	orchestrator bool
	// extra are tools beyond readOnlyTools (not for the orchestrator).
	extra []string
	// readOnly: no checkpoints and no write check.
	readOnly bool
	// gitOnly limits run_terminal_command to read-only git commands
	// (review), refused at run time otherwise.
	gitOnly bool
	// answerEnds: an answer without tool calls ends the turn (chat), with
	// no nudge for the completion signal.
	answerEnds bool
	// plan: the final answer is a plan (event.FinalMessage.Plan).
	plan bool
	// security: review for security only.
	security bool
}

// modes is the mode table.
func modes() []mode {
	review := []string{"run_terminal_command"}
	return []mode{
		{name: event.ModeAgent, orchestrator: true},
		{name: event.ModeExplore, maxIter: 10, readOnly: true},
		{name: event.ModePlan, maxIter: 10, readOnly: true, plan: true},
		{name: event.ModeReview, maxIter: 15, readOnly: true, extra: review, gitOnly: true},
		{name: event.ModeSecurityReview, maxIter: 15, readOnly: true, extra: review, gitOnly: true, security: true},
		{name: event.ModeDeepExplore, maxIter: 20, readOnly: true, extra: []string{tools.SubagentTool}},
		{name: event.ModeDeepExploreWrite, maxIter: 20, extra: []string{tools.SubagentTool, "write_file"}},
		{name: event.ModeChat, maxIter: 10, readOnly: true, answerEnds: true},
	}
}

// modeNamed returns the mode called name ("" is agent mode).
func modeNamed(name event.Mode) (mode, error) {
	if name == "" {
		name = event.ModeAgent
	}
	var names []string
	for _, m := range modes() {
		if m.name == name {
			return m, nil
		}
		names = append(names, string(m.name))
	}
	return mode{}, fmt.Errorf("unknown mode %q: olly's modes are %s", name, strings.Join(names, ", "))
}

// toolNames are the tools the mode offers at depth (0: a turn of the
// person; sub-agents are deeper). Nil offers every registered tool.
func (m mode) toolNames(cfg Config, depth int) []string {
	// The web tools go to the person's own turn in every mode, never to
	// sub-agents: web_fetch asks for approval, which only the person's
	// turn can show.
	var web []string
	if depth == 0 {
		web = []string{"web_fetch", "web_search"}
	}
	if m.orchestrator {
		if len(cfg.Tools) == 0 {
			return nil // every registered tool, the web tools among them
		}
		return slices.Concat(cfg.Tools, web)
	}
	names := slices.Concat(readOnlyTools(), m.extra, web)
	if depth >= maxSubagentDepth {
		names = without(names, tools.SubagentTool)
	}
	return names
}

func without(names []string, drop string) []string {
	out := names[:0:0]
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}

// route decides how the run works: the mode (agent-mode prompts of the
// person are classified first and may be routed to deep-explore), its
// iteration cap, the tools offered, and whether the task needs writes.
func (r *run) route(ctx context.Context, m mode) {
	if m.orchestrator && r.depth == 0 {
		r.dispatch = r.classify(ctx)
		if d := r.dispatch; d != nil && d.Intent == event.IntentAnalyze {
			next := event.ModeDeepExplore
			if d.NeedsWrite {
				next = event.ModeDeepExploreWrite
			}
			m, _ = modeNamed(next) // a row of the table
		}
	}
	r.mode = m
	if m.maxIter > 0 && m.maxIter < r.cfg.MaxIterations {
		r.cfg.MaxIterations = m.maxIter
	}
	r.loadExtensions() // extend.go: instruction files, skills
	r.offer(r.withSkill(r.withTodos(m.toolNames(r.cfg, r.depth))))
	if !m.orchestrator {
		r.project = r.a.projectContext(ctx, r.t.SessionID, r.t.Workspace)
	}
	r.gates.answerEnds = m.answerEnds
	switch {
	case m.readOnly:
		r.gates.needsWrite = false
	case r.dispatch != nil:
		r.gates.needsWrite = r.dispatch.NeedsWrite
	default:
		r.gates.needsWrite = needsWrite(r.t.Input.Text)
	}
}

// offer sets the tools offered to the model.
func (r *run) offer(names []string) {
	r.req.specs, r.offered = nil, map[string]bool{}
	for _, s := range r.a.tools.Specs(names...) {
		r.req.specs = append(r.req.specs, s)
		r.offered[s.Name] = true
	}
}

// useEnv sets the run's tool environment, fitted to its mode: read-only
// modes keep no checkpoint (they cannot write); the orchestrator gets its
// scratch directory.
func (r *run) useEnv(env tools.Env) {
	if r.mode.readOnly {
		env.Snapshots = nil
	}
	if r.mode.gitOnly {
		env.Commands = gitCommands(string(r.mode.name))
	}
	env.Skills = r.ext.skillList // found once for the turn (extend.go)
	r.env = env
	r.openScratch()
}

// offerExternal adds the tools of the workspace's MCP servers (connecting
// them on first use) to what the model is offered: in the modes that may
// act (agent, deep-explore-write) and only to the person's own turn, not
// to sub-agents, which only read.
func (r *run) offerExternal(ctx context.Context) {
	if r.env.External == nil || r.mode.readOnly || r.depth > 0 {
		return
	}
	r.env.Extra = r.env.External.Tools(ctx, r.t.SessionID, r.emit)
	for _, t := range r.env.Extra {
		s := t.Spec()
		if r.offered[s.Name] {
			continue
		}
		r.req.specs = append(r.req.specs, s)
		r.offered[s.Name] = true
	}
}

// intent is the task intent the prompt's task rules adapt to ("" when
// the prompt was not classified).
func (rt *routing) intent() string {
	if rt.dispatch == nil {
		return ""
	}
	return rt.dispatch.Intent
}

// unavailable is the result of a call of a tool the mode does not offer:
// refused at run time, whatever the model saw in its tool list.
func (r *run) unavailable(name string) string {
	avail := strings.Join(r.offeredNames(), ", ")
	switch {
	case r.mode.orchestrator && r.offered[tools.SubagentTool]:
		return fmt.Sprintf("Tool %q is not available to you: you delegate reading, searching and code navigation to sub-agents. Call run_subagent with a specific task instead. Available tools: %s.", name, avail)
	case r.mode.readOnly:
		return fmt.Sprintf("Tool %q is not available in %s mode, which is read-only. Available tools: %s.", name, r.mode.name, avail)
	}
	return fmt.Sprintf("Tool %q is not available here. Available tools: %s.", name, avail)
}

// prestartShell starts the session's shell in the background when the
// person's turn offers the terminal tool, so that starting it overlaps
// the model's first answer instead of delaying the first command. Not
// for sub-agents, which share the parent's shell, nor for modes without
// the tool or read-only ones (review's git commands run in the read-only
// sandbox, another bash than the workspace-write one started here).
func (r *run) prestartShell() {
	if r.depth == 0 && !r.mode.readOnly && r.offered[toolTerminal] && r.env.PrestartShell != nil {
		r.env.PrestartShell()
	}
}
