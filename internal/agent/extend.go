package agent

import (
	"github.com/olly-agent/olly/internal/instructions"
	"github.com/olly-agent/olly/internal/skills"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// What the person and the project add to every mode's system prompt: the
// instruction files (AGENTS.md, CLAUDE.md, …; internal/instructions) and
// the list of skills (internal/skills), names and descriptions only —
// the skill tool loads a skill's body when the model asks. Both are read
// once at the start of the person's turn and shared with its sub-agents
// and the skill tool, so an edit applies from the next prompt on.

// extensions are what the turn's prompts add, read once per turn.
type extensions struct {
	// instructions is the block of instruction files (AGENTS.md…), every
	// mode; skills the list of skills, names and descriptions; skillList
	// the skills themselves (tools.Env.Skills).
	instructions, skills string
	skillList            []skills.Skill
}

// readExtensions reads what the turn's prompts add.
func readExtensions(ws *workspace.Workspace, userDir string) *extensions {
	files := instructions.Load(ws, instructions.Options{UserDir: userDir})
	list, _ := skills.Discover(ws, userDir)
	if list == nil {
		list = []skills.Skill{} // none: the skill tool need not look again
	}
	return &extensions{instructions: instructions.Render(files), skills: skills.Render(list), skillList: list}
}

// loadExtensions reads what the run's prompt adds, unless the run has it
// already: a sub-agent's is its parent's (newSubRun).
func (r *run) loadExtensions() {
	if r.ext == nil {
		r.ext = readExtensions(r.t.Workspace, r.cfg.UserConfigDir)
	}
}

// withSkill adds the skill tool to a run's tool names when there are
// skills: every mode and sub-agents may load them (they only read). Nil
// names already offer every tool.
func (rt *routing) withSkill(names []string) []string {
	if names == nil || rt.ext.skills == "" {
		return names
	}
	return append(names[:len(names):len(names)], tools.SkillTool)
}

// instructionTokens estimates the instruction block of the system prompt
// (a token category of its own, usage.go).
func (r *run) instructionTokens() int {
	if r.ext == nil || r.ext.instructions == "" {
		return 0
	}
	return estimateTokens(r.ext.instructions)
}
