package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PromptCommand is a server prompt offered as the slash command
// /mcp__<server>__<prompt>.
type PromptCommand struct {
	Name        string // "mcp__server__prompt", without the slash
	Usage       string
	Description string
}

// PromptName is the command name of a server's prompt.
func PromptName(server, prompt string) string { return ToolPrefix + server + "__" + sanitize(prompt) }

// Prompts lists the prompts of the servers already connected as commands.
// It starts nothing: filling a menu (get_commands, the TUI's / completion)
// must not wait up to mcp.connectTimeout per server. A server connects on
// a turn (its tools) or when one of its prompts is used (ExpandPrompt).
func (m *Manager) Prompts(ctx context.Context) []PromptCommand {
	if m == nil {
		return nil
	}
	var out []PromptCommand
	for _, n := range m.order {
		c := m.conns[n]
		if !c.live() {
			continue
		}
		_, prompts, _ := c.snapshot()
		for _, p := range prompts {
			usage := "/" + PromptName(n, p.Name)
			for _, a := range p.Arguments {
				if a.Required {
					usage += " <" + a.Name + ">"
				} else {
					usage += " [" + a.Name + "]"
				}
			}
			desc := p.Description
			if desc == "" {
				desc = p.Title
			}
			out = append(out, PromptCommand{Name: PromptName(n, p.Name), Usage: usage,
				Description: strings.TrimSpace("MCP prompt of " + n + ": " + desc)})
		}
	}
	return out
}

// ExpandPrompt gets the prompt a /mcp__server__prompt command names, with
// args filling its arguments, and returns its messages as the text to send.
// It connects the server first if it is not connected yet.
func (m *Manager) ExpandPrompt(ctx context.Context, command, args string) (string, error) {
	if m == nil {
		return "", fmt.Errorf("/%s: no MCP servers are configured here", command)
	}
	for _, n := range m.order {
		c := m.conns[n]
		if !strings.HasPrefix(command, ToolPrefix+n+"__") {
			continue
		}
		s, _, err := c.get(ctx)
		if err != nil {
			return "", fmt.Errorf("/%s: %w", command, err)
		}
		_, prompts, _ := c.snapshot()
		for _, p := range prompts {
			if PromptName(n, p.Name) != command {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
			defer cancel()
			res, err := s.GetPrompt(cctx, &sdk.GetPromptParams{Name: p.Name, Arguments: PromptArgs(p, args)})
			if err != nil {
				return "", fmt.Errorf("/%s: MCP server %s: %w", command, n, err)
			}
			return promptText(res), nil
		}
	}
	return "", fmt.Errorf("unknown MCP prompt /%s (olly mcp list shows the servers; get_commands lists their prompts)", command)
}

// PromptArgs fills a prompt's arguments from the words after the command:
// NAME=VALUE words set an argument by name; the other words fill the
// remaining arguments in order, the last taking the rest of the words.
func PromptArgs(p *sdk.Prompt, args string) map[string]string {
	out := map[string]string{}
	var rest []string
	for _, w := range strings.Fields(args) {
		if k, v, ok := strings.Cut(w, "="); ok && hasArg(p, k) {
			out[k] = v
			continue
		}
		rest = append(rest, w)
	}
	var free []string
	for _, a := range p.Arguments {
		if _, set := out[a.Name]; !set {
			free = append(free, a.Name)
		}
	}
	for i, name := range free {
		if len(rest) == 0 {
			break
		}
		if i == len(free)-1 {
			out[name] = strings.Join(rest, " ")
			break
		}
		out[name], rest = rest[0], rest[1:]
	}
	return out
}

func hasArg(p *sdk.Prompt, name string) bool {
	for _, a := range p.Arguments {
		if a.Name == name {
			return true
		}
	}
	return false
}

// promptText joins a prompt's messages: user messages as they are, the
// others labelled with their role.
func promptText(res *sdk.GetPromptResult) string {
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil {
			continue
		}
		text := contentText(msg.Content)
		if msg.Role != "user" {
			text = string(msg.Role) + ": " + text
		}
		parts = append(parts, text)
	}
	return capText(strings.Join(parts, "\n\n"), maxResultChars)
}
