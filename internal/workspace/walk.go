package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charlievieth/fastwalk"

	"github.com/olly-agent/olly/internal/procs"
)

// Entry is one file or directory met by Walk.
type Entry struct {
	// Path is the absolute path as walked. Below a followed symbolic link
	// it runs through the link, not its target; the target was checked
	// to lie inside the workspace.
	Path string
	// Rel is the display form (see Workspace.Rel).
	Rel string
	// InRoot is the slash path relative to the root (or allowed
	// directory) walked; sensitive-file rules match against it.
	InRoot string
	// IsDir is true for directories, including a link to one.
	IsDir bool
	// IsSymlink is true when the entry itself is a symbolic link.
	IsSymlink bool
	// Depth is 1 for the entries of the directory walked, 2 below, …;
	// 0 when Walk was given a file.
	Depth int
	// DirEntry gives the entry's type and, through Info, its metadata
	// (of the link itself when IsSymlink).
	DirEntry fs.DirEntry
}

// WalkOptions configures Walk. The zero value honours ignore files and
// follows symbolic links that stay inside the workspace.
type WalkOptions struct {
	// NoIgnore lists files that ignore files exclude (.git is still skipped).
	NoIgnore bool
	// NoFollow never descends into a symbolically linked directory.
	NoFollow bool
	// MaxDepth stops descending below this depth; 0 means no limit.
	MaxDepth int
	// Workers is the number of goroutines reading directories; 0 picks
	// a default for the machine.
	Workers int
}

// WalkFunc is called for each entry, from several goroutines at once and
// in no fixed order: it must be safe for concurrent use. Returning
// fs.SkipDir for a directory skips it (for a file it is ignored);
// fs.SkipAll ends the walk without error; any other error ends the walk and
// is returned by Walk.
type WalkFunc func(e Entry) error

// errStop carries fs.SkipAll through fastwalk, which does not honour it.
var errStop = errors.New("workspace: walk stopped")

// Walk visits the files and directories below start (resolved like any
// path, so "backend" in a multi-root workspace walks that root). It never
// leaves the workspace: a symbolic link whose target lies outside every
// root and allowed directory, or dangles, is not reported. A linked
// directory inside is followed once, and only when its target lies
// outside the trees already being walked, which also rules out loops.
// .git is always skipped, and files excluded by git's ignore rules are
// skipped unless opts.NoIgnore; a start that is itself ignored is walked
// whole, because asking for it is explicit. If start is a file, fn is called once.
// Cancelling ctx ends the walk with ctx's error.
func (w *Workspace) Walk(ctx context.Context, start string, opts WalkOptions, fn WalkFunc) error {
	p, err := w.Resolve(start)
	if err != nil {
		return err
	}
	area, _, isRoot, _ := w.areaOf(p.Abs)
	wk := &walker{ws: w, ctx: ctx, fn: fn, opts: opts, area: area, isRoot: isRoot,
		root: p.Abs, startRel: p.InRoot, trees: []string{p.Abs}}
	if !p.IsDir() {
		return wk.report(Entry{Path: p.Abs, Rel: p.Rel, InRoot: p.InRoot, DirEntry: fs.FileInfoToDirEntry(p.Info)})
	}
	if !opts.NoIgnore {
		ig, err := NewIgnorer(area.Path, IgnoreOptions{GlobalExcludesFile: w.globalExcludes})
		if err != nil {
			return fmt.Errorf("walk %s: %w", p.Rel, err)
		}
		// Asking for an ignored directory is explicit, so it is walked
		// whole: git's patterns would exclude everything below it too.
		if !ig.Match(p.InRoot, true) {
			wk.ig = ig
		}
	}
	// fastwalk reads directories on several goroutines: give them the
	// CPUs while it runs (olly runs on one P otherwise, see internal/procs).
	release := procs.Wide()
	defer release()
	conf := fastwalk.Config{NumWorkers: opts.Workers, MaxDepth: opts.MaxDepth}
	err = fastwalk.Walk(&conf, p.Abs, wk.visit)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

type walker struct {
	ws       *Workspace
	ctx      context.Context
	fn       WalkFunc
	opts     WalkOptions
	ig       *Ignorer
	area     Root
	isRoot   bool
	root     string // the directory walked, absolute
	startRel string // root relative to area, slash form; "." for area itself

	mu    sync.Mutex
	trees []string // real directories being walked: root and followed link targets, pairwise disjoint

	stopped atomic.Bool
}

func (wk *walker) visit(p string, d fs.DirEntry, err error) error {
	if wk.stopped.Load() {
		return errStop
	}
	if cerr := wk.ctx.Err(); cerr != nil {
		return cerr
	}
	if p == wk.root {
		if err != nil {
			return fmt.Errorf("walk %s: %w", wk.ws.Rel(p), err)
		}
		return nil
	}
	if err != nil {
		// An unreadable directory below the start (permissions) is
		// skipped so that one bad directory does not end a search.
		return nil
	}
	if d.Name() == gitDirName {
		return skip(d.IsDir())
	}
	rel := filepath.ToSlash(p[len(wk.root)+1:])
	if wk.startRel != "." {
		rel = wk.startRel + "/" + rel
	}
	e := Entry{Path: p, InRoot: rel, IsDir: d.IsDir(), DirEntry: d, Depth: fastwalk.DirEntryDepth(d)}
	var target Path
	if d.Type()&fs.ModeSymlink != 0 {
		t, ok := wk.linkTarget(p)
		if !ok {
			return nil
		}
		target, e.IsSymlink, e.IsDir = t, true, t.IsDir()
	}
	if wk.ig != nil && wk.ig.matchIn(dirOf(rel), strings.Split(rel, "/"), e.IsDir) {
		return skip(d.IsDir())
	}
	e.Rel = filepath.ToSlash(p)
	if wk.isRoot {
		e.Rel = wk.ws.display(wk.area, rel)
	}
	if err := wk.report(e); err != nil {
		if errors.Is(err, fs.SkipDir) {
			return skip(d.IsDir())
		}
		return err
	}
	if e.IsSymlink && e.IsDir && !wk.opts.NoFollow && wk.claim(target.Abs) {
		return fastwalk.ErrTraverseLink
	}
	return nil
}

// report calls fn, turning fs.SkipAll into a stop.
func (wk *walker) report(e Entry) error {
	err := wk.fn(e)
	if errors.Is(err, fs.SkipAll) {
		wk.stopped.Store(true)
		return errStop
	}
	return err
}

// linkTarget resolves a symbolic link met on the walk through the same
// boundary as Resolve; a link out of the workspace, dangling, or looping
// is not ok.
func (wk *walker) linkTarget(p string) (Path, bool) {
	t, _, err := wk.ws.locate(p, p)
	if err != nil || !t.Exists() {
		return Path{}, false
	}
	return t, true
}

// claim records dir as a tree to walk when it neither holds nor lies in a
// tree already walked: each real directory is then visited at most once,
// so link cycles end.
func (wk *walker) claim(dir string) bool {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	fold := wk.area.CaseInsensitive
	for _, t := range wk.trees {
		if _, in := within(dir, t, fold); in {
			return false
		}
		if _, in := within(t, dir, fold); in {
			return false
		}
	}
	wk.trees = append(wk.trees, dir)
	return true
}

// skip is the answer for an entry left out: fs.SkipDir for a directory,
// nil for a file (fastwalk would treat SkipDir from a file as a read error
// of its directory).
func skip(isDir bool) error {
	if isDir {
		return fs.SkipDir
	}
	return nil
}

// dirOf is the slash directory of rel, "" at the top (the Ignorer's key
// for its root).
func dirOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}
