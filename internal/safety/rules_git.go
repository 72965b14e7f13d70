package safety

import (
	"strings"
)

// git finds the subcommand after git's global options and applies the rule
// for it. Configuration given with -c that runs commands (aliases starting
// with !, core.pager, core.sshCommand, …) is analysed as shell code.
func (a *analyzer) git(c *call) {
	args := c.args[1:]
	i := 0
	for ; i < len(args); i++ {
		v := args[i].value
		if !args[i].static() || !strings.HasPrefix(v, "-") {
			break
		}
		switch v {
		case "-c":
			if i+1 < len(args) {
				a.gitConfig(c, args[i+1])
			}
			i++
		case "-C", "--git-dir", "--work-tree":
			if i+1 < len(args) {
				a.gitRepoOption(c, v, args[i+1])
			}
			i++
		case "--namespace", "--config-env", "--super-prefix", "--exec-path":
			i++
		default:
			if name, val, ok := strings.Cut(v, "="); ok && (name == "--git-dir" || name == "--work-tree") {
				a.gitRepoOption(c, name, subField(args[i], val))
			}
		}
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i].value, args[i+1:]
	p := parseOpts(rest, optSpec{short: "omC", long: []string{"repo", "push-option", "receive-pack", "exec", "message", "file"}})
	first := ""
	if len(p.operands) > 0 {
		first = p.operands[0].value
	}
	add := func(sev Severity, rule, reason string) {
		a.add(sev, rule, reason, c.text, args[i].src)
	}
	switch sub {
	case "push":
		a.gitPush(c, p, add)
	case "reset":
		if p.has("--hard") {
			add(High, "git-reset-hard", "Discards all uncommitted changes (git reset --hard)")
		}
	case "clean":
		if p.has("-f", "--force") && !p.has("-n", "--dry-run") {
			add(High, "git-clean", "Deletes untracked files, which git cannot bring back (git clean -f)")
		}
	case "checkout":
		if p.has("-f", "--force") || hasDashDash(rest) || first == "." || strings.HasPrefix(first, "./") || strings.HasPrefix(first, ":/") {
			add(High, "git-discard-changes", "Overwrites uncommitted changes in the working tree (git checkout)")
		}
	case "restore":
		if len(p.operands) > 0 && (!p.has("-S", "--staged") || p.has("-W", "--worktree")) {
			add(High, "git-discard-changes", "Discards uncommitted changes in the working tree (git restore)")
		}
	case "switch":
		if p.has("-f", "--force", "--discard-changes") {
			add(High, "git-discard-changes", "Switches branch discarding uncommitted changes")
		}
	case "branch":
		switch {
		case p.has("-D") || p.has("-d", "--delete") && p.has("-f", "--force"):
			add(High, "git-branch-delete", "Force-deletes a branch, even if it is not merged (git branch -D)")
		case p.has("-d", "--delete"):
			add(Medium, "git-branch-delete-merged", "Deletes a merged branch (git branch -d)")
		}
	case "stash":
		if first == "drop" || first == "clear" {
			add(High, "git-stash-drop", "Deletes stashed changes (git stash "+first+")")
		}
	case "commit":
		if p.has("--amend") {
			add(Medium, "git-commit-amend", "Rewrites the last commit (git commit --amend)")
		}
	case "rebase":
		add(Medium, "git-rebase", "Rewrites commit history (git rebase)")
	case "filter-branch", "filter-repo":
		add(High, "git-history-rewrite", "Rewrites the whole history of the repository")
	case "reflog":
		if first == "expire" || first == "delete" {
			add(High, "git-history-rewrite", "Expires reflog entries, the last way back to lost commits")
		}
	case "gc":
		if v, ok := p.val("--prune"); ok && v.value == "now" {
			add(Medium, "git-gc-prune", "Prunes unreachable commits now (git gc --prune=now)")
		}
	case "update-ref":
		if p.has("-d") {
			add(High, "git-history-rewrite", "Deletes a ref directly (git update-ref -d)")
		}
	case "tag":
		if p.has("-d", "--delete") {
			add(Medium, "git-tag-delete", "Deletes a tag")
		}
	case "config":
		a.gitConfigCmd(c, p, add)
	case "rm":
		add(Medium, "git-rm", "Removes tracked files (recoverable from the last commit)")
	}
}

func (a *analyzer) gitPush(c *call, p parsedOpts, add func(Severity, string, string)) {
	force := p.has("-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror")
	del := p.has("-d", "--delete", "--prune")
	for _, op := range p.operands[min(1, len(p.operands)):] {
		force = force || strings.HasPrefix(op.value, "+")
		del = del || strings.HasPrefix(op.value, ":")
	}
	switch {
	case force:
		add(High, "git-push-force", "Force-pushes, overwriting commits on the remote")
	case del:
		add(High, "git-push-delete", "Deletes branches or tags on the remote")
	default:
		add(Medium, "git-push", "Pushes commits to a remote")
	}
}

func hasDashDash(fs []field) bool {
	for _, f := range fs {
		if f.static() && f.value == "--" {
			return true
		}
	}
	return false
}

// gitConfig analyses -c key=value settings that make git run a command.
func (a *analyzer) gitConfig(c *call, f field) {
	key, val, ok := strings.Cut(f.value, "=")
	if !ok {
		return
	}
	switch gitKeyRuns(key, val) {
	case gitRunsCode:
		code := subField(f, strings.TrimPrefix(val, "!"))
		a.subshell(c, code, nil)
	case gitRunsOther:
		a.add(High, "git-config-redirect", sentence("git -c %s makes git read configuration or hooks from elsewhere, or run programs, which cannot be checked", key), c.text, f.src)
	}
}

// How a git configuration key makes git run something.
const (
	gitRunsNothing = iota
	gitRunsCode    // the value is a shell command (core.fsmonitor, alias.x=!cmd)
	gitRunsOther   // the value points at code elsewhere (core.hooksPath, include.path)
)

// gitKeyRuns says whether setting key to val makes git run a program.
func gitKeyRuns(key, val string) int {
	key = strings.ToLower(key)
	first, _, _ := strings.Cut(key, ".")
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch {
	case first == "alias" && strings.HasPrefix(val, "!"):
		return gitRunsCode
	case key == "core.pager", key == "core.sshcommand", key == "core.editor", key == "core.fsmonitor",
		key == "core.askpass", key == "core.gitproxy", key == "sequence.editor", key == "diff.external",
		key == "credential.helper", key == "gpg.program", key == "uploadpack.packobjectshook",
		strings.HasPrefix(key, "pager."),
		first == "filter" && (last == "clean" || last == "smudge" || last == "process"),
		first == "diff" && (last == "textconv" || last == "command"),
		first == "merge" && last == "driver",
		first == "gpg" && last == "program",
		first == "credential" && last == "helper":
		return gitRunsCode
	case key == "core.hookspath", key == "core.worktree", key == "include.path",
		first == "includeif" && last == "path",
		first == "protocol" && last == "allow":
		return gitRunsOther
	}
	return gitRunsNothing
}

// gitRepoOption judges -C, --git-dir and --work-tree: git obeys the
// configuration of the repository they point at, so anything but the
// workspace's own repository (a root, or a root's .git) may be one a
// model planted (sub/config with core.fsmonitor, sub/HEAD, then
// git --git-dir=sub status). A -C inside the workspace finds the
// workspace's repository unless one is nested there, which writing asks
// about at critical, so only other places are reported.
func (a *analyzer) gitRepoOption(c *call, opt string, f field) {
	p := a.classify(c.sc, f)
	if p.kind != placeUnknown && !p.contents {
		for _, r := range a.opts.Roots {
			switch {
			case opt == "--git-dir" && p.path == r+"/.git", opt != "--git-dir" && p.path == r:
				return
			case opt == "-C" && within(p.path, r):
				return
			}
		}
	}
	a.add(High, "git-other-repository", sentence("git %s %s runs git on a repository other than the workspace's own, whose configuration can make git run programs", opt, f.src), c.text, f.src)
}

// gitConfigCmd judges git config: setting a key that makes git run a
// program is critical (every later git command, including the read-only
// ones olly runs without asking, would run it), and the value is analysed
// as the command it is; other changes to the user's or system's
// configuration are medium.
func (a *analyzer) gitConfigCmd(c *call, p parsedOpts, add func(Severity, string, string)) {
	if p.has("--get", "--list", "-l", "--get-all", "--get-regexp", "--get-urlmatch", "--unset", "--unset-all", "--remove-section") {
		return
	}
	ops := p.operands
	if len(ops) > 0 && (ops[0].value == "set" || ops[0].value == "--add") {
		ops = ops[1:]
	}
	if len(ops) > 1 {
		key, val := ops[0], ops[1]
		switch gitKeyRuns(key.value, val.value) {
		case gitRunsCode:
			a.add(Critical, "git-config-exec", sentence("Sets %s in git's configuration, so later git commands (even git status) run %s", key.src, val.src), c.text, key.src)
			a.subshell(c, subField(val, strings.TrimPrefix(val.value, "!")), nil)
			return
		case gitRunsOther:
			a.add(Critical, "git-config-exec", sentence("Sets %s in git's configuration, so later git commands read hooks or configuration from %s", key.src, val.src), c.text, key.src)
			return
		}
	}
	if p.has("--global", "--system") && len(p.operands) > 1 {
		add(Medium, "git-config-global", "Changes git configuration for every repository")
	}
}

// gitEnv reports whether a variable redirects git to another repository
// or configuration, or names a program git runs.
func gitEnv(name string) bool {
	switch name {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
		"GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PAGER",
		"GIT_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR":
		return true
	}
	return strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}
