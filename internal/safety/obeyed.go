package safety

import (
	"path/filepath"
	"strings"
)

// cacheDirs are hidden folders of the home directory that only hold
// caches toolchains rebuild; writing there is outside the workspace (high),
// not a change to what runs at login.
var cacheDirs = []string{".cache", ".npm", ".pnpm-store", ".yarn", ".m2", ".gradle", ".cargo/registry", ".cargo/git", ".nuget"}

// obeyedFile says whether writing path (absolute, clean) changes a file
// that programs obey later, outside any check olly makes: the hidden files
// and folders of the home directory (shell start-up files, ~/.ssh, ~/.config,
// ~/.gitconfig, ~/.local/bin …), and the files git reads as configuration
// or repository (anything under a .git folder, .gitmodules, .gitattributes,
// a HEAD file, which makes its folder a git directory git opens with
// --git-dir). rule is "" when it does not; why finishes the reason.
//
// Both are critical: a model steered by hostile repository content uses
// them to run code later (at the next login, or at the next git status,
// which olly runs without asking), so no toggle and no --yes may approve
// them. Creating a directory (mkdir, effCreate) there is not a write of
// such a file.
func (a *analyzer) obeyedFile(path string, op pathOp) (rule, why string) {
	if op.effect == effCreate && !op.link {
		return "", ""
	}
	if home := a.opts.Home; home != "" && path != home && within(path, home) {
		rest := path[len(home)+1:]
		if strings.HasPrefix(rest, ".") {
			for _, c := range cacheDirs {
				if within(rest, c) {
					return "", ""
				}
			}
			return "write-dotfile", "a hidden file of your home directory that programs obey (shell start-up, ssh, git, tools), so what is written there runs later"
		}
	}
	parts := strings.Split(path, "/")
	for _, part := range parts[:len(parts)-1] {
		if strings.EqualFold(part, ".git") {
			return "write-git-config", "inside a .git folder: git runs the hooks and programs configured there"
		}
	}
	switch base := filepath.Base(path); strings.ToLower(base) {
	case ".gitmodules", ".gitattributes":
		return "write-git-config", "a file git reads as configuration (submodules, filter and diff drivers it runs as programs)"
	case ".git":
		return "write-git-config", "which tells git where the repository and its configuration are"
	case "head":
		if base == "HEAD" {
			return "write-git-config", "the file that makes its folder a git directory, whose configuration git obeys"
		}
	}
	return "", ""
}
