package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/customcmd"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/skills"
	"github.com/olly-agent/olly/internal/workspace"
)

// The command registry every frontend uses: the built-in slash commands
// and the custom ones (internal/customcmd) of the session's workspace and
// of the person. A built-in keeps its name; so do the names frontends
// handle themselves (LocalCommands): a custom command by such a name is
// not offered.

// SourceBuiltin is the Source of olly's own commands.
const SourceBuiltin = "builtin"

// LocalCommand is a slash command a frontend handles itself rather than
// sending it to the service.
type LocalCommand struct {
	Name, About string
	// Aliases are other names for it (/exit for /quit).
	Aliases []string
}

// LocalCommands are the commands frontends handle themselves (the TUI's
// pickers, help and quit). The TUI offers and runs them from this list,
// and no custom command may take one of their names, so the two cannot
// drift apart.
func LocalCommands() []LocalCommand {
	return []LocalCommand{
		{Name: "model", About: "pick the model (also mid-session)"},
		{Name: "mode", About: "pick the mode for the next prompts"},
		{Name: "sessions", About: "search, resume, branch or fork sessions"},
		{Name: "changes", About: "review the pending changes: keep or undo"},
		{Name: "copy", About: "copy an answer or one of its code blocks"},
		{Name: "help", About: "show every key"},
		{Name: "quit", About: "leave olly", Aliases: []string{"exit"}},
	}
}

// LocalCommandNamed returns the local command called name (or one of its
// aliases).
func LocalCommandNamed(name string) (LocalCommand, bool) {
	for _, lc := range LocalCommands() {
		if lc.Name == name || slices.Contains(lc.Aliases, name) {
			return lc, true
		}
	}
	return LocalCommand{}, false
}

// builtins are the built-in commands, their Source set.
func builtins() []Command {
	cs := Commands()
	for i := range cs {
		cs[i].Source = SourceBuiltin
	}
	return cs
}

// Commands lists the slash commands of session id: the built-ins, its
// custom commands (project, then the person's) by name, then its MCP
// servers' prompts (external.go).
func (s *Service) Commands(ctx context.Context, id string) ([]Command, error) {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspace(sess)
	if err != nil {
		return nil, err
	}
	out := append(builtins(), s.customCommands(ws)...)
	if s.prompts != nil {
		out = append(out, s.prompts.PromptCommands(ctx, sess.Workspace)...)
	}
	return out, nil
}

// customCommands are the custom commands of ws, those named like a
// built-in or reserved name left out.
func (s *Service) customCommands(ws *workspace.Workspace) []Command {
	found, _ := customcmd.Load(ws, s.userDir)
	var out []Command
	for i := range found {
		c := &found[i]
		_, builtin := commandIn(Commands(), c.Name)
		if _, local := LocalCommandNamed(c.Name); builtin || local {
			continue
		}
		usage := "/" + c.Name
		if c.ArgumentHint != "" {
			usage += " " + c.ArgumentHint
		}
		out = append(out, Command{Name: c.Name, Usage: usage, About: c.Description, Source: c.Source, custom: c})
	}
	return out
}

// parseSlash reads a slash command of session id's commands; cmds are
// those commands (nil when text is no command). The text is read once: a
// word that is no built-in is looked up among the session's other
// commands (custom, MCP prompts), which are loaded only then.
func (s *Service) parseSlash(ctx context.Context, id, text string) (SlashCommand, []Command, bool, error) {
	sc, word, isCmd := lexSlash(text)
	switch {
	case !isCmd:
		return sc, nil, false, nil
	case word == "":
		return sc, builtins(), true, nil
	}
	cmds := builtins()
	if _, ok := commandIn(cmds, sc.Name); ok {
		return sc, cmds, true, nil
	}
	if all, err := s.Commands(ctx, id); err == nil {
		cmds = all // else the built-ins' answer
	}
	if _, _, err := parseSlash(text, cmds); err != nil {
		return SlashCommand{}, nil, false, err
	}
	return sc, cmds, true, nil
}

// runCustom runs a custom command: its body, with the arguments filled
// in, is the prompt of a turn, in the command's mode and with its model
// when it names them.
func (s *Service) runCustom(ctx context.Context, id string, in PromptInput, c Command, args string) (*TurnResult, error) {
	cc := c.custom
	if cc.Mode != "" {
		m := event.Mode(cc.Mode)
		if !slices.Contains(Modes(), m) {
			return nil, fmt.Errorf("custom command /%s (%s) names mode %q: use one of %s", c.Name, cc.Path, cc.Mode, ModeList())
		}
		in.Mode = m
	}
	if cc.Model != "" {
		in.Model = cc.Model
	}
	in.Text = cc.Expand(args)
	return s.runTurn(ctx, id, in)
}

// listSkills runs /skills: a turn of its own that shows the skills the
// agent can load (internal/skills) as its final message — stored like
// any turn, so history shows it too. The model is not asked, and the
// conversation does not change (a final message is not part of it).
func (s *Service) listSkills(ctx context.Context, id string, in PromptInput) (*TurnResult, error) {
	return s.withTurn(ctx, id, in, func(ctx context.Context, t *Turn) (*TurnResult, error) {
		res := &TurnResult{Turn: t.Number, Command: "skills", Status: event.FinishDone}
		list, problems := skills.Discover(t.Workspace, s.userDir)
		for _, p := range []event.Payload{event.TurnStarted{Mode: t.Mode, Model: t.Model}, event.FinalMessage{Text: skillsText(list, problems)},
			event.TurnFinished{Status: event.FinishDone}} {
			if _, err := t.Emit(ctx, p); err != nil {
				return nil, err
			}
		}
		return res, nil
	})
}

// skillsText is /skills's answer, in Markdown.
func skillsText(list []skills.Skill, problems []skills.Problem) string {
	var b strings.Builder
	if len(list) == 0 {
		b.WriteString("No skills found. A skill is a folder with a SKILL.md (front matter: name, description) under .olly/skills/ or .claude/skills/ in the workspace, or under ~/.config/olly/skills/.\n")
	} else {
		fmt.Fprintf(&b, "**Skills** (%d) — the agent sees the names and descriptions and loads a skill when a task matches:\n\n", len(list))
		for _, sk := range list {
			fmt.Fprintf(&b, "- **%s** (%s): %s\n", sk.Name, sk.Source, sk.Description)
		}
	}
	if len(problems) > 0 {
		b.WriteString("\nSkipped:\n\n")
		for _, p := range problems {
			fmt.Fprintf(&b, "- `%s`: %s\n", p.Path, p.Reason)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
