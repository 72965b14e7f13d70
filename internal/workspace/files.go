package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"
)

// Files lists up to max files of the workspace (gitignored ones left out)
// as workspace-relative paths, sorted, walking the tree at each call. The
// frontends complete @file mentions through a FileIndex, which caches it.
// A walk that stops at max, or fails part way, returns what it found; an
// error only when it found nothing.
func (w *Workspace) Files(ctx context.Context, max int) ([]string, error) {
	files, _, err := w.listFiles(ctx, max, 0)
	return files, err
}

// dirStamp is a directory met while listing and its modification time:
// creating, removing or renaming an entry changes it, so an unchanged set
// of stamps means an unchanged listing (FileIndex).
type dirStamp struct {
	path string
	mod  time.Time
}

// listFiles walks the primary root for Files, and also returns the stamps
// of the directories it read, at most maxDirs of them (the root's first):
// past that, the others are not stamped (FileIndex then relies on MaxAge
// for changes in those), so a tree of many directories holding few files
// does not make every check stat them all.
func (w *Workspace) listFiles(ctx context.Context, max, maxDirs int) ([]string, []dirStamp, error) {
	var (
		mu   sync.Mutex // Walk calls back from several goroutines
		out  []string
		dirs []dirStamp
	)
	if fi, err := os.Stat(w.Primary().Path); err == nil && maxDirs > 0 {
		dirs = append(dirs, dirStamp{w.Primary().Path, fi.ModTime()})
	}
	err := w.Walk(ctx, ".", WalkOptions{}, func(e Entry) error {
		if e.IsDir {
			mu.Lock()
			full := len(dirs) >= maxDirs
			mu.Unlock()
			if full {
				return nil
			}
			st, ok := stampOf(e)
			mu.Lock()
			if ok && len(dirs) < maxDirs {
				dirs = append(dirs, st)
			}
			mu.Unlock()
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if len(out) >= max {
			return fs.SkipAll
		}
		out = append(out, e.Rel)
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) && len(out) == 0 {
		return nil, nil, err
	}
	slices.Sort(out)
	return out, dirs, nil
}

// stampOf is a walked directory's stamp: of the directory a link leads to
// when the entry is a link.
func stampOf(e Entry) (dirStamp, bool) {
	var fi fs.FileInfo
	var err error
	if e.IsSymlink {
		fi, err = os.Stat(e.Path)
	} else {
		fi, err = e.DirEntry.Info()
	}
	if err != nil {
		return dirStamp{}, false
	}
	return dirStamp{e.Path, fi.ModTime()}, true
}

// unchanged reports whether every directory still has its stamp.
func unchanged(dirs []dirStamp) bool {
	for _, d := range dirs {
		fi, err := os.Stat(d.path)
		if err != nil || !fi.ModTime().Equal(d.mod) {
			return false
		}
	}
	return true
}
