package agent

import (
	"github.com/olly-agent/olly/internal/instructions"
	"github.com/olly-agent/olly/internal/skills"
	"github.com/olly-agent/olly/internal/tools"
)

// What the person and the project add to every mode's system prompt: the
// instruction files (AGENTS.md, CLAUDE.md, …; internal/instructions) and
// the list of skills (internal/skills), names and descriptions only —
// the skill tool loads a skill's body when the model asks. Both are read
// at the start of every run, so an edit applies from the next prompt on.

// loadExtensions reads what the run's prompt adds.
func (r *run) loadExtensions() {
	files := instructions.Load(r.t.Workspace, instructions.Options{UserDir: r.cfg.UserConfigDir})
	r.instructions = instructions.Render(files)
	list, _ := skills.Discover(r.t.Workspace, r.cfg.UserConfigDir)
	r.skills = skills.Render(list)
}

// withSkill adds the skill tool to a run's tool names when there are
// skills: every mode and sub-agents may load them (they only read). Nil
// names already offer every tool.
func (r *run) withSkill(names []string) []string {
	if names == nil || r.skills == "" {
		return names
	}
	return append(names[:len(names):len(names)], tools.SkillTool)
}

// instructionTokens estimates the instruction block of the system prompt
// (a token category of its own, usage.go).
func (r *run) instructionTokens() int {
	if r.instructions == "" {
		return 0
	}
	return estimateTokens(r.instructions)
}
