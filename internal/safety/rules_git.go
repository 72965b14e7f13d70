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
		case "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path":
			i++
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
		if p.has("--global", "--system") && !p.has("--get", "--list", "-l", "--get-all", "--get-regexp") && len(p.operands) > 1 {
			add(Medium, "git-config-global", "Changes git configuration for every repository")
		}
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
	key = strings.ToLower(key)
	code := subField(f, val)
	switch {
	case strings.HasPrefix(key, "alias.") && strings.HasPrefix(val, "!"):
		code = subField(f, val[1:])
	case key == "core.pager", key == "core.sshcommand", key == "core.editor", key == "core.fsmonitor",
		key == "sequence.editor", key == "diff.external", key == "core.hookspath", key == "credential.helper":
	default:
		return
	}
	a.subshell(c, code, nil)
}
