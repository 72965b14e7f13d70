package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/skills"
)

// SkillTool is the skill tool's name.
const SkillTool = "skill"

// maxSkillFiles bounds the files listed with a skill's body.
const maxSkillFiles = 50

// Skill is the skill tool: it loads a skill's instructions (SKILL.md's
// body) or one of its files when the model asks — the system prompt lists
// only the skills' names and descriptions (internal/skills). Reads are
// confined to the skill's folder.
type Skill struct {
	// UserDir is olly's configuration directory, holding the person's
	// own skills (skills/); "": project skills only.
	UserDir string
}

// Spec implements Tool.
func (t Skill) Spec() llm.Tool {
	return spec(SkillTool, nil,
		param{name: "name", typ: "string", desc: "The skill's name, as listed under SKILLS in your instructions.", required: true},
		param{name: "file", typ: "string", desc: "A file of the skill to read, relative to its folder (as listed with its instructions); omit it to load the instructions."},
	)
}

// Run implements Tool.
func (t Skill) Run(_ context.Context, env *Env, args Args) (*Result, error) {
	name, _ := args.String("name", "skill")
	name = strings.TrimSpace(name)
	file, _ := args.String("file", "path")
	list := env.Skills
	if list == nil {
		list, _ = skills.Discover(env.Workspace, t.UserDir)
	}
	s, ok := skills.Find(list, name)
	if !ok {
		var names []string
		for _, s := range list {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return errResult("skill: there is no skill %q, and no skills at all here.", name), nil
		}
		return errResult("skill: there is no skill %q. Skills: %s.", name, strings.Join(names, ", ")), nil
	}
	if strings.TrimSpace(file) != "" {
		text, err := s.ReadFile(strings.TrimSpace(file))
		look := event.ToolAction{Text: "Skill " + s.Name + ": " + file}
		if err != nil {
			return &Result{IsError: true, Content: fmt.Sprintf("skill %s: %v.", s.Name, err), Display: look}, nil
		}
		return &Result{Content: text, Display: look}, nil
	}
	body, err := s.Body()
	look := event.ToolAction{Text: "Skill: " + s.Name, Detail: s.Description}
	if err != nil {
		return &Result{IsError: true, Content: fmt.Sprintf("skill %s: %v.", s.Name, err), Display: look}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q>\n%s\n</skill>", s.Name, body)
	if files := s.Files(maxSkillFiles); len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles of this skill (read one with skill, name %q and file):\n- %s", s.Name, strings.Join(files, "\n- "))
	}
	return &Result{Content: b.String(), Display: look}, nil
}
