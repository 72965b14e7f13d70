package tools

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// FindDefinition is the find_definition tool: go to the definition of a
// symbol, across files.
type FindDefinition struct {
	Servers DefinitionFinder
	// ContextLines are shown around each definition (default 3);
	// MaxResults caps the definitions listed (default 10).
	ContextLines int
	MaxResults   int
}

func (t FindDefinition) withDefaults() FindDefinition {
	if t.ContextLines <= 0 {
		t.ContextLines = 3
	}
	if t.MaxResults <= 0 {
		t.MaxResults = 10
	}
	return t
}

// Spec implements Tool.
func (t FindDefinition) Spec() llm.Tool {
	return spec("find_definition", nil, positionParams()...)
}

// Describe implements Describer.
func (t FindDefinition) Describe(args Args) event.ToolAction {
	return describeLookup("Finding definition of", args)
}

// Run implements Tool.
func (t FindDefinition) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	t = t.withDefaults()
	if t.Servers == nil {
		return noServers("find_definition"), nil
	}
	tg, bad := resolveTarget(env, "find_definition", args)
	if bad != nil {
		return bad, nil
	}
	locs, err := t.Servers.Definition(ctx, tg.file.Abs, tg.pos)
	if err != nil {
		return lspFailure("find_definition", tg.where(), err)
	}
	look := event.ToolAction{Text: "Definition of " + tg.symbolOr(path.Base(tg.file.Rel))}
	if len(locs) == 0 {
		look.Detail = "none found"
		return &Result{Content: fmt.Sprintf("No definition found for %s at %s. The position may not be on an identifier, or the symbol is built in; try get_hover_info or find_symbol.", tg.label(), tg.where()),
			Display: look}, nil
	}
	src := newSourceFiles(env.Workspace)
	src.add(tg.file.Abs, tg.mapper)
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s (from %s):\n", plural(len(locs), "Definition"), tg.label(), tg.where())
	for i, l := range locs {
		if i == t.MaxResults {
			fmt.Fprintf(&b, "\n[%d more definitions are not shown.]\n", len(locs)-i)
			break
		}
		text, p := src.formatLocation(l, t.ContextLines)
		b.WriteString("\n" + text)
		if i == 0 {
			look.Detail, look.FilePath, look.StartLine = p.String(), p.rel, p.line
			if p.outside {
				look.FilePath = ""
			}
		}
	}
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}, nil
}

// symbolOr is the symbol's name, or fallback when none is known.
func (t *target) symbolOr(fallback string) string {
	if t.symbol != "" {
		return t.symbol
	}
	return fallback
}

// describeLookup is the running look of a position-taking tool.
func describeLookup(verb string, args Args) event.ToolAction {
	name, _ := args.String("symbolName", "symbol", "symbol_name", "name")
	p, _ := args.Path()
	subject := strings.TrimSpace(name)
	if subject == "" {
		subject = path.Base(strings.TrimSpace(p))
		if line, ok, _ := args.Int("line", "lineNumber", "line_number"); ok {
			subject = fmt.Sprintf("%s:%d", subject, line)
		}
	}
	return event.ToolAction{Text: verb + " " + subject, FilePath: strings.TrimSpace(p)}
}

// plural is "Definition" or "2 definitions".
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return fmt.Sprintf("%d %ss", n, strings.ToLower(word))
}
