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
	// git: the .git a writable place (ino) did not have, watched through
	// the place's modification time (watchGit).
	git string
	// missing: allowed places that did not exist, watched through path,
	// the folder nearest to them that did (by inode and modification
	// time): none can appear without a change there (see missingStamps).
	missing []string
	parts   []*dirStamp // missing places now watched through several folders
	// racy: path's modification time was too recent, when stamped, for a
	// later change to be told from it (the same clock tick, or the same
	// second where a file system keeps seconds): the missing places are
	// looked at again at the next check (missingChanged).
	racy bool
}

// racyGrain is how recent a folder's modification time must be for an
// entry made next to count as possibly unseen: the kernel's file times
// come from a clock that ticks every few milliseconds, and some file
// systems keep whole seconds.
const racyGrain = 1100 * time.Millisecond

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
	var absent []string
	for _, p := range uniquePaths(grantedPlaces(spec)) {
		ino, mtime, ok := statDir(p)
		switch {
		case !ok:
			absent = append(absent, p)
		case ino != 0:
			st := &dirStamp{path: p, exists: true, ino: ino}
			if spec.Policy == sandbox.WorkspaceWrite && slices.Contains(spec.Writable, p) {
				st.watchGit(mtime)
			}
			out = append(out, st)
		}
	}
	return append(out, missingStamps(absent)...)
}

// watchGit makes st, the stamp of a writable place whose modification
// time is mtime (taken before this looks), watch for a .git made in it
// later (git init, or one a command planted): this bash could write into
// it, a new one keeps it read-only. The .git is looked for only when the
// place's time changed, or was too recent to tell a change by (racy):
// making an entry there sets it. One stat per place and command, not
// two. A command that sets the time back (touch -d) hides a .git it made
// until the place's next change; it could as well have written into that
// .git itself, in the same command, so this costs nothing the sandbox
// promised (docs/shell.md).
func (st *dirStamp) watchGit(mtime time.Time) {
	st.git = filepath.Join(st.path, ".git")
	if _, err := os.Stat(st.git); err == nil {
		st.git = "" // there already: the sandbox keeps it read-only
		return
	}
	st.mtime, st.racy = mtime, recent(mtime)
}

// gitChanged reports whether st's place, whose inode and time are now
// ino and mtime, has a .git it did not have (see watchGit).
func (st *dirStamp) gitChanged(mtime time.Time) bool {
	if !st.racy && mtime.Equal(st.mtime) {
		return false
	}
	if _, err := os.Stat(st.git); err == nil {
		return true
	}
	st.mtime, st.racy = mtime, recent(mtime)
	return false
}

// recent reports whether mtime is too recent for a later change to be
// told from it (racyGrain). A time in the future (touch -d, a file
// server's clock ahead) is not: a new entry sets the folder's time to
// now, which differs from it.
func recent(mtime time.Time) bool {
	d := time.Since(mtime)
	return d >= 0 && d < racyGrain
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
		if st.missing != nil {
			if missingChanged(st) {
				return true
			}
			continue
		}
		if st.ino != 0 {
			ino, mtime, ok := statDir(st.path)
			if !ok || ino != st.ino || st.git != "" && st.gitChanged(mtime) {
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

// missingStamps watches the allowed places that are missing (most of the
// default build caches, on most machines) through the folders nearest to
// them that exist: one stat per such folder and command, instead of one
// per place. A place whose folder is / (or none) is watched by itself.
// These stamps only decide when a bash is replaced so that a place made
// later is covered: a live bash has no rule for a place that was missing,
// and a new one grants it only pinned.
func missingStamps(paths []string) []*dirStamp {
	var out []*dirStamp
	byDir := map[string]*dirStamp{}
	for _, p := range paths {
		dir, ino, mtime := nearestExisting(p)
		if dir == "" || dir == "/" {
			out = append(out, &dirStamp{path: p})
			continue
		}
		if st := byDir[dir]; st != nil && st.ino == ino {
			st.missing = append(st.missing, p)
			continue
		}
		st := &dirStamp{path: dir, exists: true, ino: ino, mtime: mtime, missing: []string{p}, racy: recent(mtime)}
		byDir[dir] = st
		out = append(out, st)
	}
	return out
}

// missingChanged reports whether one of st's missing places exists now.
// A place can appear only by a new entry in the folder nearest to it
// that existed (its modification time changes), or by that folder or
// one above it being replaced (the path leads to another inode), so the
// places are looked at only then, or when the folder's time was too
// recent to tell a change by (racy); if none exists, they are watched
// again through the folders nearest to them now (a deeper one, perhaps,
// for some of them: then st holds a stamp per folder), stamped before
// the places are looked at, so that one made in between changes the new
// stamp. A modification time is a hint, not a proof: a command can set
// it back (touch -d), and then a place it made is not noticed until the
// folder changes again; this only delays a new bash (a live one has no
// rule for a place that was missing, and a new one grants it pinned).
func missingChanged(st *dirStamp) bool {
	if st.parts != nil {
		return stampsChanged(st.parts)
	}
	if !st.racy {
		if ino, mtime, ok := statDir(st.path); ok && ino == st.ino && mtime.Equal(st.mtime) {
			return false
		}
	}
	parts := missingStamps(st.missing)
	for _, p := range st.missing {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	if len(parts) == 1 && parts[0].missing != nil {
		*st = *parts[0]
	} else {
		st.parts = parts
	}
	return false
}

// nearestExisting returns the deepest folder above p that exists, with
// its inode and modification time ("" if none can be read).
func nearestExisting(p string) (dir string, ino uint64, mtime time.Time) {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if ino, mtime, ok := statDir(d); ok {
			return d, ino, mtime
		}
		if filepath.Dir(d) == d {
			return "", 0, time.Time{}
		}
	}
}
