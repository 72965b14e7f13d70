package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/workspace"
)

// FindFiles is the find_files tool. The zero value uses the defaults.
type FindFiles struct {
	// MaxResults caps the paths returned.
	MaxResults int
}

func (t FindFiles) withDefaults() FindFiles {
	if t.MaxResults <= 0 {
		t.MaxResults = 500
	}
	return t
}

// Spec implements Tool.
func (t FindFiles) Spec() llm.Tool {
	t = t.withDefaults()
	return spec("find_files", t,
		param{name: "pattern", typ: "string", desc: `Glob: "*.go" matches names anywhere, "src/**/*.ts" paths. ** spans directories, {a,b} alternatives.`, required: true},
		param{name: "path", typ: "string", desc: `Directory to search, relative to the workspace root (default: the whole workspace).`},
	)
}

// Describe implements Describer.
func (t FindFiles) Describe(args Args) event.ToolAction {
	p, _ := args.String("pattern", "glob", "query")
	return event.ToolAction{Text: "Finding " + p}
}

// Run implements Tool.
func (t FindFiles) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	t = t.withDefaults()
	pattern, _ := args.String("pattern", "glob", "query")
	if strings.TrimSpace(pattern) == "" {
		return errResult(`find_files needs a pattern, such as "*.go" or "src/**/*.test.ts".`), nil
	}
	globs, err := parseGlobs(pattern)
	if err != nil {
		return errResult("find_files: %v.", err), nil
	}
	if env.Workspace == nil {
		return noWorkspace("find_files"), nil
	}
	dirs, bad := searchDirs(env, args, "find_files")
	if bad != nil {
		return bad, nil
	}
	var (
		mu    sync.Mutex
		found []string
	)
	for _, d := range dirs {
		err := env.Workspace.Walk(ctx, d.Abs, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if e.IsDir {
				return nil
			}
			rel := relTo(d, e.Path)
			if !globs.match(rel, e.InRoot) {
				return nil
			}
			mu.Lock()
			found = append(found, e.Rel)
			mu.Unlock()
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("find %s in %s: %w", pattern, d.Rel, err)
		}
	}
	where := dirLabel(dirs)
	if len(found) == 0 {
		return &Result{IsError: true,
			Content: fmt.Sprintf("No files match %q in %s (files excluded by .gitignore are skipped). Patterns are case-sensitive; a pattern without / matches file names, so try \"*%s*\" to match part of a name.", pattern, where, strings.Trim(pattern, "*")),
			Display: event.ToolAction{Text: "Found no files", Detail: pattern}}, nil
	}
	slices.Sort(found)
	found = slices.Compact(found)
	shown := found[:min(len(found), t.MaxResults)]
	var b strings.Builder
	fmt.Fprintf(&b, "%d files match %q in %s", len(found), pattern, where)
	if len(shown) < len(found) {
		fmt.Fprintf(&b, " (showing the first %d)", len(shown))
	}
	b.WriteByte('\n')
	listing := make([]event.ListingEntry, len(shown))
	for i, f := range shown {
		b.WriteString(f + "\n")
		listing[i] = event.ListingEntry{Path: f}
	}
	if len(shown) < len(found) {
		fmt.Fprintf(&b, "[%d more files are not shown; narrow the pattern or the path.]\n", len(found)-len(shown))
	}
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"),
		Display: event.ToolAction{Text: fmt.Sprintf("Found %d files", len(found)), Detail: pattern, Listing: listing}}, nil
}

// searchDirs resolves the directory argument of find_files and
// search_workspace: one directory or file, or every root when none is
// given.
func searchDirs(env *Env, args Args, tool string) ([]workspace.Path, *Result) {
	dir, _ := args.String("directory", "path", "dir", "folder")
	dir = strings.TrimSpace(dir)
	if dir == "" {
		var out []workspace.Path
		for _, r := range env.Workspace.Roots() {
			p, err := env.Workspace.Resolve(r.Path)
			if err != nil {
				return nil, pathError(tool, err)
			}
			out = append(out, p)
		}
		return out, nil
	}
	p, err := env.Workspace.Resolve(dir)
	if err != nil {
		return nil, pathError(tool, err)
	}
	return []workspace.Path{p}, nil
}

// relTo is abs relative to the directory d searched, in slash form; a
// searched file is its own base name.
func relTo(d workspace.Path, abs string) string {
	if !d.IsDir() {
		return filepath.Base(abs)
	}
	rel, err := filepath.Rel(d.Abs, abs)
	if err != nil {
		return filepath.Base(abs)
	}
	return filepath.ToSlash(rel)
}

// dirLabel names what was searched, for messages.
func dirLabel(dirs []workspace.Path) string {
	if len(dirs) == 1 {
		return dirs[0].Rel
	}
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = d.Rel
	}
	return "the workspace (" + strings.Join(names, ", ") + ")"
}
