package workspace

import (
	"path/filepath"
	"strings"
)

// maxGitPointer bounds the read of a .git or commondir file: they are
// workspace content, and hold one path.
const maxGitPointer = 4 << 10

// GitDirFile returns the git folder a ".git" file names: a linked
// worktree's or a submodule's keeps it elsewhere, named on the file's
// first line as "gitdir: path", a relative path being relative to the
// work tree top. "" when the file cannot be read (OpenRegular) or names
// no folder.
func GitDirFile(top, file string) string {
	dir, ok := strings.CutPrefix(firstLine(file), "gitdir:")
	if dir = strings.TrimSpace(dir); !ok || dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(top, dir)
	}
	return filepath.Clean(dir)
}

// CommonDir returns the folder the commondir file of the git folder dir
// names (a linked worktree's shared repository, a relative path being
// relative to dir), or "".
func CommonDir(dir string) string {
	c := firstLine(filepath.Join(dir, "commondir"))
	if c == "" {
		return ""
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(dir, c)
	}
	return filepath.Clean(c)
}

// firstLine is the first line of the regular file at name, trimmed; "" when
// it cannot be read.
func firstLine(name string) string {
	data, err := ReadRegular(name, maxGitPointer)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line)
}
