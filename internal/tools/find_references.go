package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// FindReferences is the find_references tool: every use of a symbol,
// grouped by file.
type FindReferences struct {
	Servers ReferenceFinder
	// MaxResults caps the references listed (default 30, the seed's);
	// the rest are counted per file.
	MaxResults int
}

// Spec implements Tool.
func (t FindReferences) Spec() llm.Tool {
	ps := append(positionParams(), param{name: "includeDeclaration", typ: "boolean",
		desc: "Also list the declaration itself (default true)."})
	return spec("find_references", map[string]any{"MaxResults": t.max()}, ps...)
}

func (t FindReferences) max() int {
	if t.MaxResults <= 0 {
		return 30
	}
	return t.MaxResults
}

// Describe implements Describer.
func (t FindReferences) Describe(args Args) event.ToolAction {
	return describeLookup("Finding references to", args)
}

// Run implements Tool.
func (t FindReferences) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("find_references"), nil
	}
	tg, bad := resolveTarget(env, "find_references", args)
	if bad != nil {
		return bad, nil
	}
	decl, ok, err := args.Bool("includeDeclaration", "include_declaration")
	if err != nil {
		return errResult("find_references: %v.", err), nil
	}
	if !ok {
		decl = true
	}
	locs, err := t.Servers.References(ctx, tg.file.Abs, tg.pos, decl)
	if err != nil {
		return lspFailure("find_references", tg.where(), err)
	}
	look := event.ToolAction{Text: "References to " + tg.symbolOr(tg.where())}
	if len(locs) == 0 {
		look.Detail = "none found"
		return &Result{Content: fmt.Sprintf("No references to %s found (asked at %s). If the position is not on the symbol's name, give symbolName.", tg.label(), tg.where()),
			Display: look}, nil
	}
	src := newSourceFiles(env.Workspace)
	src.add(tg.file.Abs, tg.mapper)
	files := groupByFile(src, locs)
	content, listing := t.render(tg, files, len(locs))
	look.Detail = fmt.Sprintf("%d in %s", len(locs), lsp.Plural(len(files), "file"))
	look.Listing = listing
	return &Result{Content: content, Display: look}, nil
}

// fileRefs are the references in one file, in order.
type fileRefs struct {
	rel    string
	places []place
}

// groupByFile groups locations by file: files in path order, workspace
// files before outside ones, places by position.
func groupByFile(src *sourceFiles, locs []lsp.Location) []fileRefs {
	byFile := map[string]*fileRefs{}
	var order []*fileRefs
	outside := map[string]bool{}
	for _, l := range locs {
		p := src.place(l.URI, l.Range.Start)
		f := byFile[p.rel]
		if f == nil {
			f = &fileRefs{rel: p.rel}
			byFile[p.rel] = f
			order = append(order, f)
			outside[p.rel] = p.outside
		}
		f.places = append(f.places, p)
	}
	slices.SortFunc(order, func(a, b *fileRefs) int {
		if outside[a.rel] != outside[b.rel] {
			if outside[a.rel] {
				return 1
			}
			return -1
		}
		return strings.Compare(a.rel, b.rel)
	})
	out := make([]fileRefs, len(order))
	for i, f := range order {
		slices.SortFunc(f.places, func(a, b place) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col)) })
		out[i] = *f
	}
	return out
}

// render lists up to max references under their files, then counts the
// rest per file.
func (t FindReferences) render(tg *target, files []fileRefs, total int) (string, []event.ListingEntry) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s to %s in %s:\n", lsp.Plural(total, "reference"), tg.label(), lsp.Plural(len(files), "file"))
	shown := 0
	var rest []string
	var listing []event.ListingEntry
	for _, f := range files {
		listing = append(listing, event.ListingEntry{Path: f.rel, Count: len(f.places)})
		room := t.max() - shown
		if room <= 0 {
			rest = append(rest, fmt.Sprintf("%s (%d)", f.rel, len(f.places)))
			continue
		}
		fmt.Fprintf(&b, "\n── %s (%d) ──\n", f.rel, len(f.places))
		for i, p := range f.places {
			if i == room {
				fmt.Fprintf(&b, "[… %d more in this file]\n", len(f.places)-i)
				break
			}
			fmt.Fprintf(&b, "→ %d:%d: %s\n", p.line, p.col, p.lineText())
			shown++
		}
	}
	if shown < total {
		fmt.Fprintf(&b, "\n[Showing %d of %d references.", shown, total)
		if len(rest) > 0 {
			fmt.Fprintf(&b, " Not shown: %s.", strings.Join(rest, ", "))
		}
		b.WriteString("]\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), listing
}
