package agent

import (
	"github.com/olly-agent/olly/internal/instructions"
)

// What the person and the project add to every mode's system prompt: the
// instruction files (AGENTS.md, CLAUDE.md, …; internal/instructions). They
// are read at the start of every run, so an edit applies from the next
// prompt on.

// loadExtensions reads what the run's prompt adds.
func (r *run) loadExtensions() {
	files := instructions.Load(r.t.Workspace, instructions.Options{UserDir: r.cfg.UserConfigDir})
	r.instructions = instructions.Render(files)
}

// instructionTokens estimates the instruction block of the system prompt
// (a token category of its own, usage.go).
func (r *run) instructionTokens() int {
	if r.instructions == "" {
		return 0
	}
	return estimateTokens(r.instructions)
}
