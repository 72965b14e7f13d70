package workspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// gitDirName is never searched or listed, ignore files or not.
const gitDirName = ".git"

// Ignorer answers whether a path below a directory is excluded by git's
// ignore rules: the global excludes file, the repository's
// .git/info/exclude, and every .gitignore from the repository's top down to
// the path (nested files loaded on first use and cached). Deeper files win
// over shallower ones and a later line over an earlier one, negation
// included, as in git. It is safe for concurrent use.
type Ignorer struct {
	root   string
	prefix []string // components from the repository top down to root
	base   []gitignore.Pattern
	dirs   sync.Map // slash dir relative to root ("" for root) → []gitignore.Pattern in effect there
}

// IgnoreOptions configures NewIgnorer.
type IgnoreOptions struct {
	// GlobalExcludesFile is git's core.excludesFile; "" for none.
	GlobalExcludesFile string
}

// NewIgnorer builds an Ignorer for paths relative to root, an absolute
// directory. When root lies inside a git repository, the repository's
// info/exclude and the .gitignore files above root apply too.
func NewIgnorer(root string, opts IgnoreOptions) (*Ignorer, error) {
	ig := &Ignorer{root: filepath.Clean(root)}
	if opts.GlobalExcludesFile != "" {
		ps, err := readIgnoreFile(opts.GlobalExcludesFile, nil)
		if err != nil {
			return nil, err
		}
		ig.base = ps
	}
	top, gitDir := findRepo(ig.root)
	if top == "" {
		return ig, nil
	}
	if rel, _ := within(ig.root, top, false); rel != "" {
		ig.prefix = splitPath(rel)
	}
	if gitDir != "" {
		ps, err := readIgnoreFile(filepath.Join(gitDir, "info", "exclude"), nil)
		if err != nil {
			return nil, err
		}
		ig.base = append(ig.base, ps...)
	}
	// .gitignore files between the repository top and root, top first.
	for i := 0; i < len(ig.prefix); i++ {
		dir := filepath.Join(append([]string{top}, ig.prefix[:i]...)...)
		ps, err := readIgnoreFile(filepath.Join(dir, ".gitignore"), ig.prefix[:i])
		if err != nil {
			return nil, err
		}
		ig.base = append(ig.base, ps...)
	}
	return ig, nil
}

// Match reports whether rel (slash-separated, relative to the Ignorer's
// root) is ignored. isDir says whether rel names a directory, for
// patterns ending in "/". A path below an ignored directory is ignored, as
// git cannot re-include it; anything in .git is.
func (ig *Ignorer) Match(rel string, isDir bool) bool {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." || rel == "/" || strings.HasPrefix(rel, "../") || rel == ".." {
		return false
	}
	comps := strings.Split(strings.TrimPrefix(rel, "/"), "/")
	for i := range comps {
		if comps[i] == gitDirName {
			return true
		}
		last := i == len(comps)-1
		if ig.matchIn(strings.Join(comps[:i], "/"), comps[:i+1], isDir || !last) {
			return true
		}
	}
	return false
}

// matchIn matches the entry comps (relative to root) against the rules in
// effect in its directory dir. It checks the entry alone, not its parents:
// the walk has already skipped ignored parents.
func (ig *Ignorer) matchIn(dir string, comps []string, isDir bool) bool {
	ps := ig.rulesFor(dir, comps[:len(comps)-1])
	if len(ps) == 0 {
		return false
	}
	full := comps
	if len(ig.prefix) > 0 {
		full = append(append(make([]string, 0, len(ig.prefix)+len(comps)), ig.prefix...), comps...)
	}
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].Match(full, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// rulesFor returns the patterns in effect for entries of dir (whose
// components are dirComps), loading the .gitignore files on the way once.
func (ig *Ignorer) rulesFor(dir string, dirComps []string) []gitignore.Pattern {
	if v, ok := ig.dirs.Load(dir); ok {
		return v.([]gitignore.Pattern)
	}
	parent := ig.base
	if len(dirComps) > 0 {
		up := dirComps[:len(dirComps)-1]
		parent = ig.rulesFor(strings.Join(up, "/"), up)
	}
	domain := append(append([]string(nil), ig.prefix...), dirComps...)
	// An unreadable .gitignore (permissions) is skipped rather than
	// failing the search: the files it would hide are still inside the
	// workspace, so showing them is safe.
	own, _ := readIgnoreFile(filepath.Join(ig.root, filepath.FromSlash(dir), ".gitignore"), domain)
	ps := parent
	if len(own) > 0 {
		ps = append(append(make([]gitignore.Pattern, 0, len(parent)+len(own)), parent...), own...)
	}
	v, _ := ig.dirs.LoadOrStore(dir, ps)
	return v.([]gitignore.Pattern)
}

// readIgnoreFile parses one ignore file; a missing file has no patterns.
func readIgnoreFile(name string, domain []string) ([]gitignore.Pattern, error) {
	data, err := ReadRegular(name, maxIgnoreFile)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ignore file: %w", err)
	}
	return parseIgnore(data, domain), nil
}

// parseIgnore turns ignore-file text into patterns: blank lines and
// comments dropped, CRLF endings and a UTF-8 byte order mark tolerated.
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// maxIgnoreFile bounds the read of an ignore file or a git config file.
const maxIgnoreFile = 4 << 20

// findRepo walks up from dir to the nearest directory holding .git and
// returns it with the git directory (which a worktree or submodule keeps
// elsewhere, named in a "gitdir:" file). Both are "" outside a repository.
func findRepo(dir string) (top, gitDir string) {
	for d := dir; ; {
		p := filepath.Join(d, gitDirName)
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return d, p
			}
			return d, gitDirFromFile(d, p)
		}
		up := filepath.Dir(d)
		if up == d {
			return "", ""
		}
		d = up
	}
}

// gitDirFromFile reads a ".git" file ("gitdir: path"). Worktrees keep
// info/exclude in the common directory, named by a "commondir" file.
func gitDirFromFile(top, file string) string {
	dir := GitDirFile(top, file)
	if dir == "" {
		return ""
	}
	if common := CommonDir(dir); common != "" {
		return common
	}
	return dir
}

// GlobalExcludesFile finds git's global excludes file the way git does:
// core.excludesFile from ~/.gitconfig or $XDG_CONFIG_HOME/git/config, else
// $XDG_CONFIG_HOME/git/ignore when it exists. xdgConfigHome "" means
// ~/.config. It returns "" when there is none. Pass the result to
// WithGlobalExcludesFile.
func GlobalExcludesFile(home, xdgConfigHome string) string {
	if xdgConfigHome == "" && home != "" {
		xdgConfigHome = filepath.Join(home, ".config")
	}
	var configs []string
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if xdgConfigHome != "" {
		configs = append(configs, filepath.Join(xdgConfigHome, "git", "config"))
	}
	for _, cfg := range configs {
		if f := excludesFromConfig(cfg); f != "" {
			if rest, ok := strings.CutPrefix(f, "~/"); ok && home != "" {
				f = filepath.Join(home, rest)
			}
			return f
		}
	}
	if f := filepath.Join(xdgConfigHome, "git", "ignore"); xdgConfigHome != "" && exists(f) {
		return f
	}
	return ""
}

func excludesFromConfig(name string) string {
	data, err := ReadRegular(name, maxIgnoreFile)
	if err != nil {
		return ""
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return ""
	}
	return cfg.Section("core").Options.Get("excludesfile")
}
