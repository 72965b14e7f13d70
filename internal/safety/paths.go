package safety

import (
	"path/filepath"
	"slices"
	"strings"
)

// placeKind says where a path a command touches lies. The order matters
// only for readability; judge decides what each kind means for each effect.
type placeKind uint8

const (
	placeUnknown   placeKind = iota // computed at run time, or relative to an unknown directory
	placeSink                       // /dev/null, /dev/stdout, a /dev/fd path: writing there is harmless
	placeWorkspace                  // inside a workspace root or an allowed directory
	placeTemp                       // under an OS temporary directory
	placeOutside                    // anywhere else that is not special
	placeVital                      // /, a top-level directory, a home directory, a workspace root or what holds one
	placeSystem                     // inside an operating-system tree (/etc, /usr, /bin, …)
	placeDevice                     // a disk or memory device
)

// place is the classification of one path argument.
type place struct {
	kind placeKind
	path string // absolute and clean; for a pattern, the directory it expands in
	// contents: the word is a pattern standing for the entries inside path.
	contents bool
	// computed: the directory part is only known at run time; path shows it
	// as if the unknown part were empty, which is what an unset variable does.
	computed bool
	root     bool // path is a workspace root or contains one
	auth     bool // an account or privilege file: passwd, shadow, sudoers, …
	// relative: a relative path while the directory is unknown (after
	// cd "$dir"), which is why the place is unknown.
	relative bool
}

// The tables below are read-only.

// systemTrees are the operating system's own directories. /usr/local is
// left out on purpose: installing a tool there is ordinary, if outside.
var systemTrees = []string{
	"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/sbin",
	"/usr", "/sys", "/proc", "/var/lib", "/System", "/private/etc", "/private/var/db",
}

// sinkPaths are places writing to is harmless (and so common in scripts).
var sinkPaths = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr", "/dev/stdin",
	"/dev/tty", "/dev/random", "/dev/urandom", "/dev/fd", "/proc/self/fd",
}

// devicePrefixes name disks and memory: writing to them destroys data.
var devicePrefixes = []string{
	"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
	"/dev/rdisk", "/dev/md", "/dev/dm-", "/dev/mapper/", "/dev/loop", "/dev/sr", "/dev/nbd",
	"/dev/mem", "/dev/kmem", "/dev/port", "/dev/root", "/dev/zd", "/dev/block/",
}

// authFiles control who may log in or become root.
var authFiles = []string{
	"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/pam.d", "/etc/security", "/etc/ssh/sshd_config", "/etc/doas.conf", "/etc/master.passwd",
}

// classify resolves a path argument and says where it lies.
func (a *analyzer) classify(sc *scope, f field) place {
	if f.procSubst {
		return place{kind: placeSink, path: f.value}
	}
	v := f.value
	contents := false
	if f.globAt >= 0 {
		// A pattern stands for the entries of the directory it starts in.
		v = v[:strings.LastIndexByte(v[:f.globAt], '/')+1]
		contents = true
	}
	computed := f.lead
	if v == "" {
		if !contents {
			return place{kind: placeUnknown, computed: true}
		}
		v = "."
	}
	if !filepath.IsAbs(v) {
		if sc.cwd == "" || computed {
			return place{kind: placeUnknown, computed: true, relative: !computed}
		}
		v = filepath.Join(sc.cwd, v)
	}
	p := place{path: filepath.Clean(v), contents: contents, computed: computed}
	p.kind, p.root, p.auth = a.kindOf(p.path, contents)
	if computed && (p.kind < placeVital || p.kind == placeVital && p.path != "/") {
		// Only the bad news of an unset variable is worth reporting ("$X/"*
		// is /*, "$P/usr/lib" is /usr/lib); any other guess about a
		// computed directory would be made up.
		p.kind = placeUnknown
	}
	return p
}

func (a *analyzer) kindOf(p string, contents bool) (placeKind, bool, bool) {
	o := &a.opts
	if !contents {
		for _, s := range sinkPaths {
			if within(p, s) {
				return placeSink, false, false
			}
		}
		for _, d := range devicePrefixes {
			if strings.HasPrefix(p, d) || p+"/" == d {
				return placeDevice, false, false
			}
		}
	}
	if vital, root := a.vital(p, contents); vital {
		return placeVital, root, false
	}
	for _, r := range o.Roots {
		if within(p, r) {
			return placeWorkspace, false, false
		}
	}
	for _, r := range o.Allowed {
		if within(p, r) {
			return placeWorkspace, false, false
		}
	}
	for _, s := range systemTrees {
		if within(p, s) && !within(p, "/usr/local") {
			auth := false
			for _, f := range authFiles {
				auth = auth || within(p, f)
			}
			return placeSystem, false, auth
		}
	}
	// A whole directory directly in a home (~/Documents, ~/.ssh) is as bad
	// to lose as the home itself; a file in it is only outside.
	if filepath.Dir(p) == o.Home && !contents {
		return placeVital, false, false
	}
	for _, t := range o.TempDirs {
		if p != t && within(p, t) {
			return placeTemp, false, false
		}
	}
	return placeOutside, false, false
}

// vital reports whether p (or, with contents, everything in p) is a path
// whose loss is a disaster: /, a top-level directory, a home directory or
// one of its ancestors, a workspace root or one of its ancestors.
func (a *analyzer) vital(p string, contents bool) (vital, root bool) {
	o := &a.opts
	switch {
	case p == "/":
		return true, false
	case strings.Count(p, "/") == 1:
		return !slices.Contains(o.TempDirs, p), false
	case within(o.Home, p):
		return true, false
	}
	for _, r := range o.Roots {
		if p == r && !contents || p != r && within(r, p) {
			return true, true
		}
	}
	// Other people's homes.
	if d := filepath.Dir(p); d == "/home" || d == "/Users" {
		return true, false
	}
	return false, false
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// describe names a place for a reason sentence.
func (a *analyzer) describe(p place) string {
	name := p.path
	switch {
	case p.path == "/":
		name = "the root directory /"
	case p.path == a.opts.Home:
		name = "your home directory " + p.path
	case p.root && slices.Contains(a.opts.Roots, p.path):
		name = "the workspace root " + p.path
	case p.root:
		name = p.path + ", which holds the workspace"
	}
	if p.contents {
		name = "everything in " + name
	}
	if p.computed {
		name += " (if the variable is empty)"
	}
	return name
}
