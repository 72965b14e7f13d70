package session

import (
	"context"
	"fmt"
	"strings"
)

// externalPrefix starts the commands of MCP servers' prompts.
const externalPrefix = "mcp__"

// PromptSource supplies a workspace's MCP prompts as slash commands.
type PromptSource interface {
	// PromptCommands lists them (connecting the servers if needed).
	PromptCommands(ctx context.Context, workspace string) []Command
	// ExpandPrompt returns the text command (without its slash) and its
	// arguments stand for.
	ExpandPrompt(ctx context.Context, workspace, command, args string) (string, error)
}

// externalCommand runs /mcp__server__prompt ARGS: the prompt's text, from
// its server, is the turn's prompt.
func (s *Service) externalCommand(ctx context.Context, id string, in PromptInput, sc SlashCommand) (*TurnResult, error) {
	if s.prompts == nil {
		return nil, fmt.Errorf("unknown command /%s: no MCP servers are configured", sc.Name)
	}
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	text, err := s.prompts.ExpandPrompt(ctx, sess.Workspace, sc.Name, sc.Args)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("/%s: the MCP prompt is empty", sc.Name)
	}
	in.Text = text
	return s.runTurn(ctx, id, in)
}
