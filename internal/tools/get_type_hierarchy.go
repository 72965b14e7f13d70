package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// GetTypeHierarchy is the get_type_hierarchy tool: the types a type
// extends or implements (supertypes) and the types that extend or
// implement it (subtypes).
type GetTypeHierarchy struct {
	Servers TypeHierarchyProvider
	// MaxTypes caps each direction's list (default 50).
	MaxTypes int
}

func (t GetTypeHierarchy) max() int {
	if t.MaxTypes <= 0 {
		return 50
	}
	return t.MaxTypes
}

// Spec implements Tool.
func (t GetTypeHierarchy) Spec() llm.Tool {
	ps := append(positionParams(), param{name: "direction", typ: "string",
		desc: "supertypes (what it extends or implements), subtypes (what extends or implements it) or both (default)."})
	return spec("get_type_hierarchy", map[string]any{"MaxTypes": t.max()}, ps...)
}

// Describe implements Describer.
func (t GetTypeHierarchy) Describe(args Args) event.ToolAction {
	return describeLookup("Tracing types of", args)
}

// Run implements Tool.
func (t GetTypeHierarchy) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("get_type_hierarchy"), nil
	}
	sup, sub, bad := directions(args, "get_type_hierarchy", "supertypes", "subtypes")
	if bad != nil {
		return bad, nil
	}
	tg, bad := resolveTarget(env, "get_type_hierarchy", args)
	if bad != nil {
		return bad, nil
	}
	items, err := t.Servers.PrepareTypeHierarchy(ctx, tg.file.Abs, tg.pos)
	if err != nil {
		return lspFailure("get_type_hierarchy", tg.where(), err)
	}
	look := event.ToolAction{Text: "Type hierarchy of " + tg.symbolOr(tg.where())}
	if len(items) == 0 {
		look.Detail = "not a type"
		return &Result{Content: fmt.Sprintf("No type at %s for %s; put the position on a type's name.", tg.where(), tg.label()), Display: look}, nil
	}
	item := items[0]
	src := newSourceFiles(env.Workspace)
	src.add(tg.file.Abs, tg.mapper)
	self := src.place(item.URI, item.SelectionRange.Start)
	var b strings.Builder
	fmt.Fprintf(&b, "Type hierarchy of %s %s (%s):\n", item.Kind, item.Name, self)
	var counts []string
	for _, dir := range []struct {
		want  bool
		title string
		get   func(context.Context, lsp.TypeHierarchyItem) ([]lsp.TypeHierarchyItem, error)
	}{
		{sup, "Supertypes", t.Servers.Supertypes},
		{sub, "Subtypes", t.Servers.Subtypes},
	} {
		if !dir.want {
			continue
		}
		types, err := dir.get(ctx, item)
		if err != nil {
			return lspFailure("get_type_hierarchy", item.Name, err)
		}
		t.list(&b, src, dir.title, types)
		counts = append(counts, fmt.Sprintf("%d %s", len(types), strings.ToLower(dir.title)))
	}
	look.Detail, look.FilePath, look.StartLine = strings.Join(counts, ", "), self.rel, self.line
	if self.outside {
		look.FilePath = ""
	}
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}, nil
}

func (t GetTypeHierarchy) list(b *strings.Builder, src *sourceFiles, title string, types []lsp.TypeHierarchyItem) {
	fmt.Fprintf(b, "\n%s (%d):\n", title, len(types))
	if len(types) == 0 {
		b.WriteString("  none found\n")
	}
	for i, ty := range types {
		if i == t.max() {
			fmt.Fprintf(b, "  [%d more are not shown.]\n", len(types)-i)
			break
		}
		p := src.place(ty.URI, ty.SelectionRange.Start)
		fmt.Fprintf(b, "  %s %s — %s", ty.Kind, ty.Name, p)
		if p.outside {
			b.WriteString(" (outside the workspace)")
		}
		b.WriteByte('\n')
		if line := p.lineText(); line != "" {
			fmt.Fprintf(b, "    %s\n", line)
		}
	}
}
