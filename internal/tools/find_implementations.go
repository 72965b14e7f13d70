package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// FindImplementations is the find_implementations tool: the concrete types
// or methods that implement an interface, abstract class or method.
type FindImplementations struct {
	Servers ImplementationFinder
	// ContextLines are shown around each implementation (default 1);
	// MaxResults caps the list (default 20).
	ContextLines int
	MaxResults   int
}

func (t FindImplementations) withDefaults() FindImplementations {
	if t.ContextLines <= 0 {
		t.ContextLines = 1
	}
	if t.MaxResults <= 0 {
		t.MaxResults = 20
	}
	return t
}

// Spec implements Tool.
func (t FindImplementations) Spec() llm.Tool {
	return spec("find_implementations", nil, positionParams()...)
}

// Describe implements Describer.
func (t FindImplementations) Describe(args Args) event.ToolAction {
	return describeLookup("Finding implementations of", args)
}

// Run implements Tool.
func (t FindImplementations) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	t = t.withDefaults()
	if t.Servers == nil {
		return noServers("find_implementations"), nil
	}
	tg, bad := resolveTarget(env, "find_implementations", args)
	if bad != nil {
		return bad, nil
	}
	locs, err := t.Servers.Implementations(ctx, tg.file.Abs, tg.pos)
	if err != nil {
		return lspFailure("find_implementations", tg.where(), err)
	}
	look := event.ToolAction{Text: "Implementations of " + tg.symbolOr(tg.where())}
	if len(locs) == 0 {
		look.Detail = "none found"
		return &Result{Content: fmt.Sprintf("No implementations of %s found (asked at %s). It may not be an interface or abstract member; find_references lists its uses.", tg.label(), tg.where()),
			Display: look}, nil
	}
	src := newSourceFiles(env.Workspace)
	src.add(tg.file.Abs, tg.mapper)
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s:\n", lsp.Plural(len(locs), "implementation"), tg.label())
	var listing []event.ListingEntry
	for i, l := range locs {
		if i == t.MaxResults {
			fmt.Fprintf(&b, "\n[%d more implementations are not shown.]\n", len(locs)-i)
			break
		}
		text, p := src.formatLocation(l, t.ContextLines)
		b.WriteString("\n" + text)
		listing = append(listing, event.ListingEntry{Path: p.rel})
	}
	look.Detail, look.Listing = fmt.Sprintf("%d found", len(locs)), listing
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}, nil
}
