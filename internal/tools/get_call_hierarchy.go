package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// GetCallHierarchy is the get_call_hierarchy tool: who calls a function
// (incoming) and what it calls (outgoing).
type GetCallHierarchy struct {
	Servers CallHierarchyProvider
	// MaxCalls caps each direction's list (default 50).
	MaxCalls int
}

func (t GetCallHierarchy) max() int {
	if t.MaxCalls <= 0 {
		return 50
	}
	return t.MaxCalls
}

// Spec implements Tool.
func (t GetCallHierarchy) Spec() llm.Tool {
	ps := append(positionParams(), param{name: "direction", typ: "string",
		desc: "incoming (who calls it), outgoing (what it calls) or both (default)."})
	return spec("get_call_hierarchy", map[string]any{"MaxCalls": t.max()}, ps...)
}

// Describe implements Describer.
func (t GetCallHierarchy) Describe(args Args) event.ToolAction {
	return describeLookup("Tracing calls of", args)
}

// Run implements Tool.
func (t GetCallHierarchy) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("get_call_hierarchy"), nil
	}
	in, out, bad := directions(args, "get_call_hierarchy", "incoming", "outgoing")
	if bad != nil {
		return bad, nil
	}
	tg, bad := resolveTarget(env, "get_call_hierarchy", args)
	if bad != nil {
		return bad, nil
	}
	items, err := t.Servers.PrepareCallHierarchy(ctx, tg.file.Abs, tg.pos)
	if err != nil {
		return lspFailure("get_call_hierarchy", tg.where(), err)
	}
	look := event.ToolAction{Text: "Call hierarchy of " + tg.symbolOr(tg.where())}
	if len(items) == 0 {
		look.Detail = "not a function"
		return &Result{Content: fmt.Sprintf("No function or method at %s for %s; put the position on a function's name or a call to it.", tg.where(), tg.label()), Display: look}, nil
	}
	item := items[0]
	src := newSourceFiles(env.Workspace)
	src.add(tg.file.Abs, tg.mapper)
	self := src.place(item.URI, item.SelectionRange.Start)
	var b strings.Builder
	fmt.Fprintf(&b, "Call hierarchy of %s %s (%s):\n", item.Kind, item.Name, self)
	var counts []string
	if in {
		calls, err := t.Servers.IncomingCalls(ctx, item)
		if err != nil {
			return lspFailure("get_call_hierarchy", item.Name, err)
		}
		t.incoming(&b, src, calls)
		counts = append(counts, lsp.Plural(len(calls), "caller"))
	}
	if out {
		calls, err := t.Servers.OutgoingCalls(ctx, item)
		if err != nil {
			return lspFailure("get_call_hierarchy", item.Name, err)
		}
		t.outgoing(&b, src, item, calls)
		counts = append(counts, lsp.Plural(len(calls), "callee"))
	}
	look.Detail, look.FilePath, look.StartLine = strings.Join(counts, ", "), self.rel, self.line
	if self.outside {
		look.FilePath = ""
	}
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}, nil
}

// incoming lists callers, each with its call sites.
func (t GetCallHierarchy) incoming(b *strings.Builder, src *sourceFiles, calls []lsp.CallHierarchyIncomingCall) {
	fmt.Fprintf(b, "\nIncoming calls (%s):\n", lsp.Plural(len(calls), "caller"))
	if len(calls) == 0 {
		b.WriteString("  none found\n")
	}
	for i, c := range calls {
		if i == t.max() {
			fmt.Fprintf(b, "  [%d more callers are not shown.]\n", len(calls)-i)
			break
		}
		from := src.place(c.From.URI, c.From.SelectionRange.Start)
		fmt.Fprintf(b, "  %s %s — %s\n", c.From.Kind, c.From.Name, from)
		for _, r := range c.FromRanges {
			site := src.place(c.From.URI, r.Start)
			fmt.Fprintf(b, "    → %d:%d: %s\n", site.line, site.col, site.lineText())
		}
	}
}

// outgoing lists callees, each with where the item calls it.
func (t GetCallHierarchy) outgoing(b *strings.Builder, src *sourceFiles, item lsp.CallHierarchyItem, calls []lsp.CallHierarchyOutgoingCall) {
	fmt.Fprintf(b, "\nOutgoing calls (%s):\n", lsp.Plural(len(calls), "callee"))
	if len(calls) == 0 {
		b.WriteString("  none found\n")
	}
	for i, c := range calls {
		if i == t.max() {
			fmt.Fprintf(b, "  [%d more callees are not shown.]\n", len(calls)-i)
			break
		}
		to := src.place(c.To.URI, c.To.SelectionRange.Start)
		fmt.Fprintf(b, "  %s %s — %s", c.To.Kind, c.To.Name, to)
		if to.outside {
			b.WriteString(" (outside the workspace)")
		}
		b.WriteByte('\n')
		for _, r := range c.FromRanges {
			site := src.place(item.URI, r.Start)
			fmt.Fprintf(b, "    → %d:%d: %s\n", site.line, site.col, site.lineText())
		}
	}
}

// directions reads the direction argument: first, second or both.
func directions(args Args, tool, first, second string) (a, b bool, bad *Result) {
	d, _ := args.String("direction")
	switch strings.ToLower(strings.TrimSpace(d)) {
	case "", "both", "all":
		return true, true, nil
	case first:
		return true, false, nil
	case second:
		return false, true, nil
	}
	return false, false, errResult("%s: direction must be %s, %s or both, got %q.", tool, first, second, d)
}
