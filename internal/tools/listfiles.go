package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/workspace"
)

// ListFiles is the list_files tool. The zero value uses the defaults.
type ListFiles struct {
	// MaxEntries caps the entries shown; DefaultDepth is how deep a
	// recursive listing goes when no depth is given; MaxScan stops the
	// walk of a huge tree.
	MaxEntries   int
	DefaultDepth int
	MaxScan      int
}

func (t ListFiles) withDefaults() ListFiles {
	if t.MaxEntries <= 0 {
		t.MaxEntries = 500
	}
	if t.DefaultDepth <= 0 {
		t.DefaultDepth = 3
	}
	if t.MaxScan <= 0 {
		t.MaxScan = 50000
	}
	return t
}

// Spec implements Tool.
func (t ListFiles) Spec() llm.Tool {
	t = t.withDefaults()
	return spec("list_files", t,
		param{name: "path", typ: "string", desc: `Directory, relative to the workspace root (default ".", the root).`},
		param{name: "recursive", typ: "boolean", desc: "List subdirectories too (default false)."},
		param{name: "depth", typ: "integer", desc: "How many levels to list when recursive (1 = only this directory)."},
	)
}

// Run implements Tool (without asking: a directory outside is refused).
func (t ListFiles) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	p, err := t.Prepare(ctx, env, args)
	return runPrepared(ctx, env, p, err)
}

// Prepare implements Gated: listing outside the workspace asks first.
func (t ListFiles) Prepare(ctx context.Context, env *Env, args Args) (*Prepared, error) {
	t = t.withDefaults()
	dir, _ := args.String("path", "directory", "dir")
	if strings.TrimSpace(dir) == "" {
		dir = "."
	}
	recursive, _, err := args.Bool("recursive")
	if err != nil {
		return &Prepared{Done: errResult("list_files: %v.", err)}, nil
	}
	depth, hasDepth, err := args.Int("depth", "maxDepth", "max_depth")
	if err != nil {
		return &Prepared{Done: errResult("list_files: %v.", err)}, nil
	}
	switch {
	case hasDepth && depth < 1:
		return &Prepared{Done: errResult("list_files: depth must be 1 or more (1 lists only the directory itself).")}, nil
	case !hasDepth && recursive:
		depth = t.DefaultDepth
	case !hasDepth:
		depth = 1
	}
	look := event.ToolAction{Text: "Listing " + dir}
	return prepareRead(env, "list_files", dir, look, func(ctx context.Context, env *Env, wp workspace.Path) (*Result, error) {
		return t.list(ctx, env, wp, depth)
	}), nil
}

// listed is one entry found.
type listed struct {
	rel   string // relative to the listed directory, slash form
	shown string // display path in the workspace
	parts []string
	isDir bool
	depth int
}

func (t ListFiles) list(ctx context.Context, env *Env, wp workspace.Path, depth int) (*Result, error) {
	if !wp.IsDir() {
		return errResult("%s is a file, not a directory; use read_file to read it.", wp.Rel), nil
	}
	var (
		mu      sync.Mutex
		entries []listed
		more    bool
	)
	err := env.Workspace.Walk(ctx, wp.Abs, workspace.WalkOptions{MaxDepth: depth}, func(e workspace.Entry) error {
		rel, err := filepath.Rel(wp.Abs, e.Path)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		mu.Lock()
		defer mu.Unlock()
		if len(entries) >= t.MaxScan {
			more = true
			return fs.SkipAll
		}
		entries = append(entries, listed{rel: rel, shown: e.Rel, parts: strings.Split(rel, "/"), isDir: e.IsDir, depth: e.Depth})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("list %s: %w", wp.Rel, err)
	}
	if len(entries) == 0 {
		return &Result{Content: fmt.Sprintf("%s is empty (or holds only files .gitignore excludes).", wp.Rel),
			Display: event.ToolAction{Text: "Listed " + wp.Rel, Detail: "empty", FilePath: wp.Rel}}, nil
	}
	slices.SortFunc(entries, treeOrder)
	shown, cutDepth := t.cut(entries)
	return t.render(wp, entries, shown, cutDepth, more), nil
}

// cut picks what to show within MaxEntries: whole levels, deepest dropped
// first, so the top of the tree is always complete; if even the first level
// does not fit, its first MaxEntries entries. cutDepth is the deepest level
// shown completely when levels were dropped (0 otherwise).
func (t ListFiles) cut(entries []listed) (shown []listed, cutDepth int) {
	if len(entries) <= t.MaxEntries {
		return entries, 0
	}
	perDepth := map[int]int{}
	maxDepth := 0
	for _, e := range entries {
		perDepth[e.depth]++
		maxDepth = max(maxDepth, e.depth)
	}
	keep, sum := 0, 0
	for d := 1; d <= maxDepth; d++ {
		if sum+perDepth[d] > t.MaxEntries {
			break
		}
		sum += perDepth[d]
		keep = d
	}
	for _, e := range entries {
		if (keep == 0 && e.depth == 1 && len(shown) < t.MaxEntries) || (keep > 0 && e.depth <= keep) {
			shown = append(shown, e)
		}
	}
	return shown, keep
}

func (t ListFiles) render(wp workspace.Path, all, shown []listed, cutDepth int, more bool) *Result {
	var b strings.Builder
	dirs := 0
	for _, e := range all {
		if e.isDir {
			dirs++
		}
	}
	fmt.Fprintf(&b, "%s — %d directories, %d files", wp.Rel, dirs, len(all)-dirs)
	if len(shown) < len(all) {
		fmt.Fprintf(&b, " (showing %d)", len(shown))
	}
	b.WriteByte('\n')
	listing := make([]event.ListingEntry, 0, len(shown))
	for _, e := range shown {
		b.WriteString(e.rel)
		if e.isDir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
		listing = append(listing, event.ListingEntry{Path: e.shown, IsDir: e.isDir})
	}
	switch {
	case len(shown) < len(all) && cutDepth > 0:
		fmt.Fprintf(&b, "[%d entries deeper than level %d are not shown (limit %d); list a subdirectory to see them.]\n", len(all)-len(shown), cutDepth, t.MaxEntries)
	case len(shown) < len(all):
		fmt.Fprintf(&b, "[%d more entries are not shown (limit %d); use find_files with a pattern to narrow down.]\n", len(all)-len(shown), t.MaxEntries)
	}
	if more {
		fmt.Fprintf(&b, "[The walk stopped after %d entries; list a subdirectory.]\n", t.MaxScan)
	}
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"),
		Display: event.ToolAction{Text: "Listed " + wp.Rel, Detail: fmt.Sprintf("%d entries", len(all)), FilePath: wp.Rel, Listing: listing}}
}

// treeOrder sorts a listing as a tree: a directory is followed by its
// contents, and at each level directories come before files, then by name.
func treeOrder(a, b listed) int {
	for i := 0; i < len(a.parts) && i < len(b.parts); i++ {
		if a.parts[i] == b.parts[i] {
			continue
		}
		ad := i < len(a.parts)-1 || a.isDir
		bd := i < len(b.parts)-1 || b.isDir
		if ad != bd {
			if ad {
				return -1
			}
			return 1
		}
		if c := strings.Compare(strings.ToLower(a.parts[i]), strings.ToLower(b.parts[i])); c != 0 {
			return c
		}
		return strings.Compare(a.parts[i], b.parts[i])
	}
	return len(a.parts) - len(b.parts)
}
