package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/olly-agent/olly/internal/customcmd"
	"github.com/olly-agent/olly/internal/event"
)

// Command is a slash command a prompt may start with. Every frontend gets
// them from here, so /plan means the same in the terminal, the web UI and
// over RPC.
type Command struct {
	// Name is the command without its slash ("plan").
	Name string
	// Usage shows its arguments ("/plan <task>"); About says what it does.
	Usage string
	About string
	// Mode is the mode the rest of the prompt runs in; "" for commands
	// that act on the session (/compact, /new).
	Mode event.Mode
	// Default is the task when nothing follows a mode command; "" means
	// a task is required.
	Default string
	// Source is "builtin"; "mcp" for a server's prompt
	// (/mcp__server__prompt); or where a custom command was found:
	// "project", "claude" or "user" (slash_custom.go).
	Source string
	// custom is the custom command's file; nil for the others.
	custom *customcmd.Command
}

// Commands lists the slash commands, in the order help shows them.
func Commands() []Command {
	return []Command{
		{Name: "plan", Usage: "/plan <task>", Mode: event.ModePlan,
			About: "explore read-only and write a plan, which you can then implement"},
		{Name: "review", Usage: "/review [what to review]", Mode: event.ModeReview,
			About:   "review code for bugs and security problems (read-only; may run read-only git commands)",
			Default: "Review the uncommitted changes in this workspace (start with git status and git diff HEAD) for bugs and security problems."},
		{Name: "security-review", Usage: "/security-review [what to review]", Mode: event.ModeSecurityReview,
			About:   "security review only, with a confidence for every finding (read-only; may run read-only git commands)",
			Default: "Do a security review of the uncommitted changes in this workspace (start with git status and git diff HEAD)."},
		{Name: "deep-explore", Usage: "/deep-explore <question>", Mode: event.ModeDeepExplore,
			About: "investigate the code in depth, read-only, with sub-agents"},
		{Name: "explore", Usage: "/explore <question>", Mode: event.ModeExplore,
			About: "look around the code read-only and answer"},
		{Name: "chat", Usage: "/chat <question>", Mode: event.ModeChat,
			About: "answer a question, reading code when needed"},
		{Name: "implement", Usage: "/implement [turn]",
			About: "implement the session's latest plan (or the plan of that turn) in agent mode"},
		{Name: "compact", Usage: "/compact [instructions]",
			About: "summarize the conversation so far to free the context window; instructions say what to keep"},
		{Name: "new", Usage: "/new [prompt]",
			About: "start a new session in the same workspace (and run the prompt there)"},
		{Name: "skills", Usage: "/skills",
			About: "list the skills the agent can load, and where they come from"},
	}
}

// SlashCommand is a parsed prompt: a command and its arguments, or (not a
// command) the prompt's text in Args.
type SlashCommand struct {
	Name string
	Args string
}

// ParseSlash reads a slash command at the start of a prompt (leading
// spaces allowed). It reports whether the prompt is a command; when it is
// not, Args is the text to send (a leading "//" unescaped to "/"). A
// prompt that starts with a slash and a word made of letters, digits, _ and
// - is a command, and an unknown one is an error listing the commands; a
// slash followed by anything else ("/usr/bin/env is missing", "/ 2") is
// ordinary text.
func ParseSlash(text string) (SlashCommand, bool, error) {
	return parseSlash(text, builtins())
}

// parseSlash is ParseSlash with the commands cmds.
func parseSlash(text string, cmds []Command) (SlashCommand, bool, error) {
	sc, word, isCmd := lexSlash(text)
	if word != "" {
		if _, ok := commandIn(cmds, sc.Name); !ok {
			return SlashCommand{}, false, unknownCommand(word, cmds)
		}
	}
	return sc, isCmd, nil
}

// lexSlash reads the shape of a slash command without looking it up. When
// the prompt is no command, sc.Args is the text to send; an MCP prompt is
// a command whose lookup waits for its server. Otherwise word is the
// command word as typed, sc.Name it lower-cased, to be looked up.
func lexSlash(text string) (sc SlashCommand, word string, isCmd bool) {
	lead := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	rest := text[lead:]
	switch {
	case strings.HasPrefix(rest, "//"):
		return SlashCommand{Args: text[:lead] + rest[1:]}, "", false
	case !strings.HasPrefix(rest, "/"):
		return SlashCommand{Args: text}, "", false
	}
	word, args := rest[1:], ""
	if i := strings.IndexAny(word, " \t\r\n"); i >= 0 {
		word, args = word[:i], strings.TrimSpace(word[i:])
	}
	if word == "" || !commandWord(word) {
		return SlashCommand{Args: text}, "", false
	}
	if strings.HasPrefix(word, externalPrefix) {
		// An MCP prompt: whether the server offers it is known only once
		// it is connected (Service.command asks it).
		return SlashCommand{Name: word, Args: args}, "", true
	}
	return SlashCommand{Name: strings.ToLower(word), Args: args}, word, true
}

func unknownCommand(word string, cmds []Command) error {
	return fmt.Errorf("unknown command /%s. Commands: %s. To send a prompt that starts with a slash, begin it with //", word, commandList(cmds))
}

func commandWord(w string) bool {
	for _, r := range w {
		if !(r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

func commandIn(cmds []Command, name string) (Command, bool) {
	for _, c := range cmds {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

func commandList(cmds []Command) string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Usage)
	}
	return strings.Join(out, ", ")
}

// command runs a parsed slash command, one of cmds.
func (s *Service) command(ctx context.Context, id string, in PromptInput, sc SlashCommand, cmds []Command) (*TurnResult, error) {
	if strings.HasPrefix(sc.Name, externalPrefix) {
		return s.externalCommand(ctx, id, in, sc)
	}
	c, _ := commandIn(cmds, sc.Name) // parseSlash returns known commands only
	switch {
	case c.custom != nil:
		return s.runCustom(ctx, id, in, c, sc.Args)
	case c.Name == "skills":
		return s.listSkills(ctx, id, in)
	case c.Mode != "":
		text := sc.Args
		if text == "" {
			text = c.Default
		}
		if text == "" {
			return nil, fmt.Errorf("/%s needs something to work on: %s", c.Name, c.Usage)
		}
		in.Text, in.Mode = text, c.Mode
		return s.runTurn(ctx, id, in)
	case c.Name == "implement":
		turn := 0
		if sc.Args != "" {
			n, err := strconv.Atoi(sc.Args)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("/implement takes the number of the turn whose plan to implement, or nothing for the latest plan; got %q", sc.Args)
			}
			turn = n
		}
		return s.ImplementPlan(ctx, id, turn)
	case c.Name == "compact":
		return s.compact(ctx, id, sc.Args)
	case c.Name == "new":
		return s.newSession(ctx, id, in, sc.Args)
	}
	return nil, fmt.Errorf("command /%s has no handler", c.Name)
}

// Compactor compacts a session's conversation on request (/compact): the
// agent's context compaction, steered by the person's instructions. It
// records the result through t.Emit (a compaction event), so the next
// request is built from the summary.
type Compactor interface {
	Compact(ctx context.Context, t *Turn, instructions string) error
}

// compact runs /compact as a turn of its own: the session is busy while it
// runs, like a prompt.
func (s *Service) compact(ctx context.Context, id, instructions string) (*TurnResult, error) {
	if s.compactor == nil {
		return nil, errors.New("/compact is not available: this olly has no context compaction configured")
	}
	in := PromptInput{Text: strings.TrimSpace("/compact " + instructions)}
	return s.withTurn(ctx, id, in, func(ctx context.Context, t *Turn) (*TurnResult, error) {
		res := &TurnResult{Turn: t.Number, Command: "compact", Status: event.FinishDone}
		if err := s.compactor.Compact(ctx, t, instructions); err != nil {
			res.Status, res.Error = event.FinishFailed, err.Error()
			return res, fmt.Errorf("compact: %w", err)
		}
		return res, nil
	})
}

// newSession runs /new: a session in the same workspace, with the same mode
// and model, and the prompt (if any) run there. The result names the new
// session.
func (s *Service) newSession(ctx context.Context, id string, in PromptInput, text string) (*TurnResult, error) {
	old, err := s.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	sess, err := s.Create(ctx, CreateOptions{Workspace: old.Workspace, Mode: event.Mode(old.Mode), Model: old.Model})
	if err != nil {
		return nil, fmt.Errorf("/new: %w", err)
	}
	if c, ok := s.runner.(interface{ SessionCleared(id string) }); ok {
		c.SessionCleared(sess.ID) // its SessionStart hooks say "clear", as Claude Code's /clear
	}
	if text == "" {
		return &TurnResult{Command: "new", SessionID: sess.ID, Status: event.FinishDone}, nil
	}
	in.Text = text
	res, err := s.Prompt(ctx, sess.ID, in)
	if res == nil {
		res = &TurnResult{}
	}
	res.Command, res.SessionID = "new", sess.ID
	return res, err
}
