package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Nested is what the search for repositories inside the writable places
// found (the repositories that are not a place's own or its submodules: a
// clone in third_party/lib, a linked worktree below the root, a bare
// repository), whose git metadata stays read-only as the root's does. It
// travels in the Spec so the helper need not search again.
type Nested struct {
	// Git are the .git entries found (directories, pointer files or
	// links) and the git folders found bare (a folder holding HEAD,
	// objects/ and refs/), as found (not resolved).
	Git []string `json:"git,omitempty"`
	// Unread are the folders the search could not list (permission
	// denied), also kept read-only: a sandboxed command can chmod a
	// folder (Landlock has no right covering chmod) to hide a repository
	// from the next search, and a read-only folder's mode cannot be
	// changed back (mounts) nor anything below it written (either
	// mechanism). Cut says so too.
	Unread []string `json:"unread,omitempty"`
	// Cut says why the search stopped before it had looked everywhere
	// ("" when it did): repositories where it did not look are not
	// protected.
	Cut string `json:"cut,omitempty"`
}

// NestedRepositories searches spec's writable places (not its caches)
// for nested repositories as a workspace-write command's plan does, for
// olly doctor: what is found is kept read-only on Linux, and Cut says
// where the search did not look.
func NestedRepositories(spec Spec) Nested {
	spec.Policy = WorkspaceWrite
	return *spec.searched().Nested
}

// searched returns s with Nested found afresh (a caller's is replaced:
// only a search olly made is trusted to be complete or say it is not).
func (s Spec) searched() Spec {
	s.Nested = nil
	if s.Policy != WorkspaceWrite {
		return s
	}
	var places []string
	for _, w := range s.Writable {
		if real, err := filepath.EvalSymlinks(w); err == nil {
			places = append(places, real)
		}
	}
	s.Nested = findNested(s.searchPlaces(places))
	return s
}

// searchPlaces returns the writable places (resolved) that are searched
// for nested repositories: those that are not build caches (Caches). The
// caches hold the repositories tools keep (Go's cache/vcs, cargo's
// git/db), not ones people work in, and are big: searching them at each
// shell start would cost more than the whole workspace.
func (s Spec) searchPlaces(places []string) []string {
	var caches []string
	for _, c := range s.Caches {
		caches = append(caches, filepath.Clean(c), realOrSelf(c))
	}
	var out []string
	for _, p := range places {
		if !slices.Contains(caches, p) {
			out = append(out, p)
		}
	}
	return out
}

// nestLimits bound the search, so a monorepo with node_modules does not
// make each shell start slow.
type nestLimits struct {
	depth   int           // folder levels below a writable place
	dirs    int           // folders listed, per writable place
	entries int           // entries read, per writable place
	repos   int           // repositories kept, per writable place (the spec travels on a command line)
	time    time.Duration // for all writable places together
}

// nestBudget is the search's budget (docs/performance.md has what it
// costs). Tests shrink it.
var nestBudget = nestLimits{depth: 32, dirs: 20000, entries: 400000, repos: 256, time: 250 * time.Millisecond}

// findNested searches the writable places (resolved) for nested
// repositories, within nestBudget.
func findNested(places []string) *Nested {
	out := &Nested{}
	deadline := time.Now().Add(nestBudget.time)
	var cuts, unread []string
	for _, p := range places {
		s := nestSearch{root: p, lim: nestBudget, deadline: deadline}
		s.run()
		out.Git = append(out.Git, s.found...)
		out.Unread = append(out.Unread, s.unreadDirs...)
		if s.cut != "" {
			cuts = append(cuts, fmt.Sprintf("in %s it stopped at %s", p, s.cut))
		}
		if u := s.unreadText(); u != "" {
			unread = append(unread, fmt.Sprintf("in %s %s", p, u))
		}
	}
	var notes []string
	if len(cuts) > 0 {
		notes = append(notes, "the search for nested git repositories was cut short ("+strings.Join(cuts, "; ")+
			"): repositories where it did not look are not protected from sandboxed commands")
	}
	if len(unread) > 0 {
		notes = append(notes, "the search for nested git repositories could not read some folders ("+strings.Join(unread, "; ")+
			"): what they hold is not searched, so they are kept read-only for sandboxed commands (once they are readable, the next shell that starts searches them)")
	}
	out.Cut = strings.Join(notes, "; ")
	return out
}

// nestSearch is a breadth-first walk of one writable place: the shallow
// folders, where people keep the repositories they work in, come first.
// Links are not followed (the place a link names is searched as itself
// if it is writable).
type nestSearch struct {
	root     string
	lim      nestLimits
	deadline time.Time
	found    []string
	cut      string // why the search is incomplete
	stopped  bool   // the budget ran out
	dirs     int
	entries  int
	// unread counts the folders that could not be listed; unreadNote
	// says which was first, and why.
	unread     int
	unreadNote string
	unreadDirs []string // at most lim.repos
}

type nestDir struct {
	path  string
	depth int
}

func (s *nestSearch) run() {
	queue := []nestDir{{s.root, 0}}
	for len(queue) > 0 && !s.stopped {
		d := queue[0]
		queue = queue[1:]
		queue = append(queue, s.list(d)...)
	}
}

// list reads the folder d: a .git entry is kept (not entered), a folder
// holding HEAD, objects/ and refs/ is kept as a bare repository (not
// entered), node_modules is looked into by package only, and other
// folders are returned to be listed in turn.
func (s *nestSearch) list(d nestDir) []nestDir {
	if !s.enter() {
		return nil
	}
	entries, ok := s.read(d.path)
	if !ok {
		return nil
	}
	if d.depth > 0 && bareGitFolder(entries) {
		s.keep(d.path)
		return nil
	}
	var sub []nestDir
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.EqualFold(name, GitDir):
			if d.depth > 0 { // the place's own .git is protected anyway
				s.keep(filepath.Join(d.path, name))
			}
		case !e.IsDir(): // links included: not followed
		case name == "node_modules":
			s.packages(filepath.Join(d.path, name))
		case d.depth+1 >= s.lim.depth:
			if s.cut == "" { // the rest is still searched
				s.cut = fmt.Sprintf("%d folder levels (%s is not searched)", s.lim.depth, filepath.Join(d.path, name))
			}
		default:
			sub = append(sub, nestDir{filepath.Join(d.path, name), d.depth + 1})
		}
	}
	return sub
}

// read lists dir in directory order, in pieces, counting entries against
// the budget; false when it cannot be read or the budget ran out.
func (s *nestSearch) read(dir string) ([]fs.DirEntry, bool) {
	f, err := openDir(dir)
	if err != nil {
		s.unreadable(dir, err)
		return nil, false
	}
	defer f.Close()
	var out []fs.DirEntry
	for {
		part, err := f.ReadDir(1024)
		out = append(out, part...)
		s.entries += len(part)
		if s.stop() {
			return nil, false
		}
		if err != nil || len(part) == 0 {
			return out, true
		}
	}
}

// unreadable records a folder the search could not list, unless it is
// gone (removed, or swapped for a file, since its parent was listed):
// what lies below it is not searched, and a sandboxed command can make a
// folder unreadable (chmod 000 third_party: Landlock has no right covering
// chmod) to hide a repository from the next plan, so this is a cut, said
// like the others.
func (s *nestSearch) unreadable(dir string, err error) {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return
	}
	s.unread++
	if len(s.unreadDirs) < s.lim.repos {
		s.unreadDirs = append(s.unreadDirs, dir)
	}
	if s.unread == 1 {
		why := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err
		}
		s.unreadNote = fmt.Sprintf("it could not list %s (%v)", dir, why)
	}
}

// unreadText says which folders could not be listed ("" when none).
func (s *nestSearch) unreadText() string {
	switch {
	case s.unread == 0:
		return ""
	case s.unread == 1:
		return s.unreadNote
	}
	return fmt.Sprintf("%s; nor %d other folders", s.unreadNote, s.unread-1)
}

// packages looks for repositories cloned into node_modules: only each
// package's own .git (node_modules/x/.git, node_modules/@scope/x/.git).
// npm, yarn and pnpm install packages, git dependencies included, from
// packed archives without .git, and rewrite the folder on each install;
// a repository a person works in there is one they cloned or linked in
// as a package (a link is not followed: its target is searched where it
// lies, if writable).
func (s *nestSearch) packages(dir string) {
	if !s.enter() {
		return
	}
	entries, ok := s.read(dir)
	if !ok {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".bin" || e.Name() == ".pnpm" || e.Name() == ".cache" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), "@") {
			if !s.enter() {
				return
			}
			scoped, ok := s.read(p)
			if !ok && s.stopped {
				return
			}
			for _, x := range scoped {
				if x.IsDir() && !s.probe(filepath.Join(p, x.Name(), GitDir)) {
					return
				}
			}
			continue
		}
		if !s.probe(filepath.Join(p, GitDir)) {
			return
		}
	}
}

// probe keeps p if it exists; false when the budget ran out (checked
// for each probe: a node_modules of 100k packages is as many lstat calls).
func (s *nestSearch) probe(p string) bool {
	if s.stop() {
		return false
	}
	s.entries++
	if _, err := os.Lstat(p); err == nil {
		s.keep(p)
	}
	return !s.stopped
}

func (s *nestSearch) keep(p string) {
	if len(s.found) >= s.lim.repos {
		s.stopAt(fmt.Sprintf("%d repositories", s.lim.repos))
		return
	}
	s.found = append(s.found, p)
}

// enter counts a folder about to be listed, and reports whether the
// budget allows it.
func (s *nestSearch) enter() bool {
	if !s.stop() && s.dirs >= s.lim.dirs {
		s.stopAt(fmt.Sprintf("%d folders", s.lim.dirs))
	}
	s.dirs++
	return !s.stopped
}

// stop reports whether the budget ran out (entries, time), recording why.
func (s *nestSearch) stop() bool {
	switch {
	case s.stopped:
	case s.entries >= s.lim.entries:
		s.stopAt(fmt.Sprintf("%d entries", s.lim.entries))
	case time.Now().After(s.deadline):
		s.stopAt(fmt.Sprintf("its time limit (%s)", s.lim.time))
	default:
		return false
	}
	return true
}

// stopAt ends the search, saying why (in place of a depth note: the
// budget is the bigger gap).
func (s *nestSearch) stopAt(why string) {
	if !s.stopped {
		s.stopped, s.cut = true, why
	}
}

// bareGitFolder reports whether a folder's entries make it a git folder
// (git opens one with HEAD, objects/ and refs/ as a repository: a bare
// clone, or a git folder moved out of its work tree).
func bareGitFolder(entries []fs.DirEntry) bool {
	var head, objects, refs bool
	for _, e := range entries {
		switch e.Name() {
		case "HEAD":
			head = e.Type().IsRegular()
		case "objects":
			objects = e.IsDir()
		case "refs":
			refs = e.IsDir()
		}
	}
	return head && objects && refs
}
