package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The FileIndex defaults.
const (
	// DefaultMaxFiles bounds one workspace's listing.
	DefaultMaxFiles = 50000
	// DefaultMaxWorkspaces bounds the listings kept; the least recently
	// used goes first.
	DefaultMaxWorkspaces = 8
	// DefaultFresh is how long a listing is used without looking at the
	// disk: the keystrokes of one @word.
	DefaultFresh = 2 * time.Second
	// DefaultMaxDirs bounds the directories whose modification times a
	// listing is checked against: a change in a directory past it is seen
	// within MaxAge.
	DefaultMaxDirs = 4096
	// DefaultMaxAge is how long a listing whose directories did not
	// change is kept: it catches what directory times miss (an ignore
	// file edited in place).
	DefaultMaxAge = 30 * time.Second
)

// FileIndexOptions configure a FileIndex; zero values take the defaults.
type FileIndexOptions struct {
	MaxFiles      int
	MaxDirs       int
	MaxWorkspaces int
	Fresh         time.Duration
	MaxAge        time.Duration
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// FileIndex caches workspaces' file listings for @file completion, so a
// frontend can ask at every keystroke. A listing is used as is for Fresh;
// after that it is checked against the modification times of the
// directories it read (a file created, removed or renamed anywhere in the
// tree changes its directory's; at most MaxDirs directories are checked,
// the others' changes are seen at MaxAge), and listed again when one
// changed or when it is MaxAge old. Concurrent requests for a workspace share one
// walk. It is safe for concurrent use; the composition root makes one and
// hands it to every frontend.
type FileIndex struct {
	o FileIndexOptions

	mu      sync.Mutex
	entries map[string]*listing // by primary root
}

// listing is one workspace's files.
type listing struct {
	ready chan struct{} // closed once the walk ended; the fields below are set then
	list  *FileList
	dirs  []dirStamp
	err   error
	// walked is when the walk began; checked when the directories were
	// last found unchanged; used when the listing was last asked for.
	walked, checked, used time.Time
}

// NewFileIndex makes an empty index.
func NewFileIndex(o FileIndexOptions) *FileIndex {
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.MaxDirs <= 0 {
		o.MaxDirs = DefaultMaxDirs
	}
	if o.MaxWorkspaces <= 0 {
		o.MaxWorkspaces = DefaultMaxWorkspaces
	}
	if o.Fresh <= 0 {
		o.Fresh = DefaultFresh
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &FileIndex{o: o, entries: map[string]*listing{}}
}

// Complete returns at most limit files of the workspace matching query
// (FileList.Match).
func (x *FileIndex) Complete(ctx context.Context, w *Workspace, query string, limit int) ([]string, error) {
	l, err := x.Files(ctx, w)
	if err != nil {
		return nil, err
	}
	return l.Match(query, limit), nil
}

// Files returns the workspace's files (its primary root's, gitignored ones
// left out, at most MaxFiles), from the cache while it is current.
func (x *FileIndex) Files(ctx context.Context, w *Workspace) (*FileList, error) {
	key := w.Primary().Path
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x.mu.Lock()
		e := x.entries[key]
		if e == nil {
			e = x.startLocked(key)
			x.mu.Unlock()
			x.walk(ctx, w, key, e)
		} else {
			x.mu.Unlock()
		}
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l, ok, err := x.current(key, e); ok || err != nil {
			return l, err
		}
		// Stale, or a walk canceled by its caller's context while this
		// caller's goes on: it was dropped, look again.
	}
}

// startLocked records a walk about to begin. Called with x.mu held.
func (x *FileIndex) startLocked(key string) *listing {
	now := x.o.Now()
	e := &listing{ready: make(chan struct{}), walked: now, used: now}
	x.entries[key] = e
	x.evictLocked()
	return e
}

// walk lists the workspace into e and wakes its waiters.
func (x *FileIndex) walk(ctx context.Context, w *Workspace, key string, e *listing) {
	files, dirs, err := w.listFiles(ctx, x.o.MaxFiles, x.o.MaxDirs)
	if err != nil {
		err = fmt.Errorf("list the files of %s: %w", key, err)
	}
	x.mu.Lock()
	e.list, e.dirs, e.err = NewFileList(files), dirs, err
	e.checked = e.walked
	if err != nil && x.entries[key] == e {
		delete(x.entries, key) // the next request tries again
	}
	x.mu.Unlock()
	close(e.ready)
}

// current returns e's listing when it is still current (ok); it drops a
// stale one. A failed walk's error is returned, unless it was a canceled
// context of another caller.
func (x *FileIndex) current(key string, e *listing) (*FileList, bool, error) {
	if e.err != nil {
		if errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded) {
			return nil, false, nil
		}
		return nil, false, e.err
	}
	now := x.o.Now()
	x.mu.Lock()
	e.used = now
	fresh := now.Sub(e.checked) < x.o.Fresh
	young := now.Sub(e.walked) < x.o.MaxAge
	x.mu.Unlock()
	if fresh {
		return e.list, true, nil
	}
	if young && unchanged(e.dirs) {
		x.mu.Lock()
		e.checked = now
		x.mu.Unlock()
		return e.list, true, nil
	}
	x.mu.Lock()
	if x.entries[key] == e {
		delete(x.entries, key)
	}
	x.mu.Unlock()
	return nil, false, nil
}

// evictLocked drops the least recently used listings beyond
// MaxWorkspaces. Called with x.mu held.
func (x *FileIndex) evictLocked() {
	for len(x.entries) > x.o.MaxWorkspaces {
		var oldest string
		var at time.Time
		for k, e := range x.entries {
			if oldest == "" || e.used.Before(at) {
				oldest, at = k, e.used
			}
		}
		delete(x.entries, oldest)
	}
}
