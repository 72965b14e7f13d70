package shell

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// dirStamp is what a long-lived bash's sandbox depends on that can change
// after it started: a directory the rules split into its entries (one
// that holds a protected path), whose later entries no rule covers (and
// whose entries replaced by a rename lose theirs: the kernel's rules
// attach to inodes), or an allowed place that did not exist yet (a build
// cache made later), which no rule covers either. A new entry, an entry
// replaced, or the place appearing means the next command gets a new
// bash, whose rules are made afresh; entries only removed do not.
type dirStamp struct {
	path    string
	mtime   time.Time
	exists  bool
	entries map[string]uint64 // a split directory's entries: name → inode
	// ino: an allowed place that existed, by inode: one removed and made
	// again (the agent's scratch directory, every turn) is another inode,
	// which no rule covers.
	ino uint64
}

// stampsFor lists the dirStamps of spec, whose allow list (as Start
// gives it to the kernel) is grants. Split directories are watched
// where people and olly's own tools make files: in the places the spec
// lets commands write (a workspace root that holds a protected path) and
// in the home folder. System directories split only on the way down to a
// protected path (/, /dev/shm that holds olly's state, /tmp when a home
// lies in it) are not: other programs add entries there all the time, and
// a command rarely needs one made after its session's bash started.
//
// For workspace-write, each writable place's .git that is missing is
// watched too: one made later (git init, or one planted there) would
// otherwise stay writable to this bash, whose rules and mounts were made
// when it started; its appearing means a new bash that protects it.
func stampsFor(spec sandbox.Spec, grants []sandbox.Grant, home string) []*dirStamp {
	if spec.Policy == sandbox.Unsandboxed {
		return nil
	}
	watched := slices.Concat(spec.Writable, spec.Own)
	if home != "" {
		watched = append(watched, home)
	}
	// Each watched place as given and resolved, once (not once per grant).
	for _, w := range slices.Clone(watched) {
		if r := realPath(w); r != w {
			watched = append(watched, r)
		}
	}
	var out []*dirStamp
	for _, g := range grants {
		if g.Access == sandbox.List && slices.ContainsFunc(watched, func(w string) bool { return within(w, g.Path) }) {
			st := stamp(g.Path)
			st.entries = listEntries(g.Path)
			out = append(out, &st)
		}
	}
	// The places it may write, by inode (the read-only bash: only its
	// own folder; it reads the others through "/").
	// A place stamped missing needs no stamp of its .git: its appearing
	// is a change already. A place granted twice (the session's scratch
	// directory is allowed and one of its own) is stamped once.
	missing := map[string]bool{}
	for _, p := range uniquePaths(grantedPlaces(spec)) {
		if st := stamp(p); !st.exists {
			missing[p] = true
			out = append(out, &st)
		} else if ino := inode(p); ino != 0 {
			out = append(out, &dirStamp{path: p, exists: true, ino: ino})
		}
	}
	if spec.Policy == sandbox.WorkspaceWrite {
		for _, p := range spec.Writable {
			if st := stamp(filepath.Join(p, ".git")); !st.exists && !missing[p] {
				out = append(out, &st)
			}
		}
	}
	return out
}

// realPath is p with symbolic links resolved, or p if that fails (the
// rules name resolved paths).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func stamp(path string) dirStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return dirStamp{path: path}
	}
	return dirStamp{path: path, mtime: fi.ModTime(), exists: true}
}

// inode returns path's inode (links followed), 0 if it cannot be read.
func inode(path string) uint64 {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return 0
	}
	return uint64(st.Ino)
}

// listEntries returns dir's entries by inode; nil if it cannot be read.
func listEntries(dir string) map[string]uint64 {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(map[string]uint64, len(des))
	for _, de := range des {
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join(dir, de.Name()), &st) == nil {
			out[de.Name()] = uint64(st.Ino)
		}
	}
	return out
}

// stampsChanged reports whether any stamp no longer holds. A split
// directory whose modification time changed is listed again: only a new
// entry, or one replaced (a new inode under an old name), counts; then
// the new time is kept, so removals cost one listing, not one per command.
func stampsChanged(stamps []*dirStamp) bool {
	for _, st := range stamps {
		if st.ino != 0 {
			if inode(st.path) != st.ino {
				return true
			}
			continue
		}
		now := stamp(st.path)
		if now.exists == st.exists && now.mtime.Equal(st.mtime) {
			continue
		}
		if !now.exists || !st.exists || st.entries == nil {
			return true
		}
		for name, ino := range listEntries(st.path) {
			if old, ok := st.entries[name]; !ok || old != ino {
				return true
			}
		}
		st.mtime = now.mtime
	}
	return false
}
