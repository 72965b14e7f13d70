package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Access is what a Grant allows.
type Access int

// The accesses of a grant.
const (
	// List allows listing a directory's entries (names only), and nothing
	// beneath: the directories that hold a protected path get only this.
	List Access = iota
	// Read allows reading, listing and executing.
	Read
	// Write allows Read and every change.
	Write
)

// Grant is one rule of the allow list the kernel enforces: Path and
// everything beneath it (for a directory) get Access.
type Grant struct {
	Path   string
	Access Access
	Dir    bool
}

// maxGrants bounds the allow list: a directory with a protected path
// inside is replaced by its entries, and a home folder with thousands of
// entries should not cost thousands of rules per command.
const maxGrants = 4096

// Plan turns spec into the allow list: "/" readable, the writable places
// and olly's own folders writable, each replaced by its entries (down to
// the protected path) where it holds a protected path, since the kernel
// only allows and can never take back what a rule above grants. The
// directories on the way down to a protected path get List only, so their
// entries can be listed (the protected path's name is visible, never its
// contents). Unless spec.Mount (the helper makes them read-only with
// mounts), the read-only paths inside the writable places (.git) are
// split out the same way and granted Read: the folder holding one is then
// not writable itself.
func Plan(spec Spec) []Grant {
	var ro []string
	if !spec.Mount {
		ro = spec.readOnly(true)
	}
	return planWith(spec, ro)
}

// planWith is Plan with the read-only paths to split out already worked
// out (spec.readOnly(true), or none with spec.Mount).
func planWith(spec Spec, ro []string) []Grant {
	p := planner{deny: realPaths(spec.DenyRead), ro: ro}
	p.expand("/", Read, "")
	for _, w := range spec.writable() {
		if !spec.Pinned || !swapped(w) {
			p.expand(w, Write, "")
		}
	}
	for _, o := range spec.own() {
		if real, err := filepath.EvalSymlinks(o); err == nil && (!spec.Pinned || real == filepath.Clean(o)) {
			p.add(real, Write)
		}
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full"} {
		p.out = append(p.out, Grant{Path: dev, Access: Write})
	}
	return p.out
}

type planner struct {
	deny []string
	ro   []string // read-only inside the writable places
	out  []Grant
}

// realPaths returns the paths with symbolic links resolved (the kernel's
// rules attach to what a path names), keeping missing ones as given.
func realPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		p = filepath.Clean(p)
		out = append(out, p)
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			out = append(out, real)
		}
	}
	return out
}

func (p *planner) add(path string, a Access) {
	if len(p.out) >= maxGrants {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	p.out = append(p.out, Grant{Path: path, Access: a, Dir: fi.IsDir()})
}

// expand grants a on path, resolved, unless it is protected; within
// holds the resolved directory a Write grant's entries must stay inside
// (a link in the workspace to /etc must not make /etc writable).
func (p *planner) expand(path string, a Access, within string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return // missing: nothing to grant
	}
	fi, err := os.Stat(real)
	if err != nil {
		return
	}
	p.expandReal(real, a, within, fi.IsDir())
}

// expandReal is expand for a path already resolved; dir says whether it
// is a directory.
func (p *planner) expandReal(real string, a Access, within string, dir bool) {
	if within != "" && !under(real, within) {
		return // a link out of a writable place: "/" covers reading it
	}
	if slices.ContainsFunc(p.deny, func(d string) bool { return under(real, d) }) {
		return
	}
	if a == Write && slices.ContainsFunc(p.ro, func(r string) bool { return under(real, r) }) {
		a = Read
	}
	inside := func(d string) bool { return under(d, real) }
	if !slices.ContainsFunc(p.deny, inside) && (a != Write || !slices.ContainsFunc(p.ro, inside)) {
		if len(p.out) < maxGrants {
			p.out = append(p.out, Grant{Path: real, Access: a, Dir: dir})
		}
		return
	}
	// A protected or read-only path lies inside: list this directory, and
	// grant its entries one by one.
	p.out = append(p.out, Grant{Path: real, Access: List, Dir: true})
	entries, err := readDir(real)
	if err != nil {
		return
	}
	in := within
	if a == Write && in == "" {
		in = real
	}
	for _, e := range entries {
		if len(p.out) >= maxGrants {
			return
		}
		child := filepath.Join(real, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			p.expand(child, a, in) // resolve it: the rule attaches to the target
			continue
		}
		// A plain entry of a resolved directory is its own real path: no
		// need to resolve or stat it again (home folders have hundreds).
		p.expandReal(child, a, in, e.IsDir())
	}
}

// swapped reports whether path, given as a real path (Spec.Pinned),
// resolves to another one now: a link put in its place.
func swapped(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	return err == nil && real != filepath.Clean(path)
}

// unswapped returns paths, without those a link replaced when s is
// Pinned (swapped).
func (s Spec) unswapped(paths []string) []string {
	if !s.Pinned {
		return paths
	}
	var out []string
	for _, p := range paths {
		if !swapped(p) {
			out = append(out, p)
		}
	}
	return out
}

// RealPrefix returns p (clean, absolute) with symbolic links resolved,
// or, when p does not exist, its nearest existing ancestor resolved
// joined with the rest (a build cache made later resolves to it): the
// form a Pinned spec names its places in.
func RealPrefix(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Pin returns spec with its Writable, Own and Caches as real paths
// (RealPrefix, resolved now) and Pinned set, for a caller that accepts
// its places at this moment (a hook, an MCP server): a link a command
// puts in place of one later is then not followed.
func Pin(spec Spec) Spec {
	pin := func(paths []string) []string {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			out = append(out, RealPrefix(p))
		}
		return out
	}
	spec.Writable, spec.Own, spec.Caches = pin(spec.Writable), pin(spec.Own), pin(spec.Caches)
	spec.Pinned = true
	return spec
}
