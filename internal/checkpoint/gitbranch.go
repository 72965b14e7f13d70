package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Branch is what StartBranch did.
type Branch struct {
	// Created is true when the agent's work now happens on a new branch.
	Created bool `json:"created"`
	// Name is the new branch, or the branch the work stays on ("" when the
	// workspace is not a git repository or HEAD is detached).
	Name string `json:"name,omitempty"`
	// Reason says why no branch was created.
	Reason string `json:"reason,omitempty"`
}

// Message is what the agent tells the person.
func (b Branch) Message() string {
	switch {
	case b.Created:
		return fmt.Sprintf("Working on a new git branch, %s (nothing is committed or pushed).", b.Name)
	case b.Name != "":
		return fmt.Sprintf("Working on the current branch, %s: %s.", b.Name, b.Reason)
	}
	return fmt.Sprintf("No git branch was created: %s.", b.Reason)
}

// StartBranch puts an agent run's work on a new branch,
// olly/<YYYY-MM-DD>-<slug of the prompt>, when dir is inside a git work tree
// whose working tree is clean (agent.autoCreateBranch; the agent calls it
// before its first write). It refuses, saying why in Branch.Reason, when
// the tree has uncommitted or untracked files (they would be carried onto
// the new branch and mixed with the agent's work), when HEAD is detached,
// or when the current branch is already one of olly's. It only runs
// `git checkout -b`: it never commits or pushes. The error is for git
// failing unexpectedly; the agent then works on the current branch.
func StartBranch(ctx context.Context, dir, prompt string, now time.Time) (Branch, error) {
	if out, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree"); err != nil || strings.TrimSpace(out) != "true" {
		if errors.Is(err, exec.ErrNotFound) {
			return Branch{Reason: "git is not installed"}, nil
		}
		return Branch{Reason: "the workspace is not a git repository"}, nil
	}
	cur, err := git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return Branch{Reason: "HEAD is detached, so there is no branch to start from"}, nil
	}
	cur = strings.TrimSpace(cur)
	if strings.HasPrefix(cur, "olly/") {
		return Branch{Name: cur, Reason: "it is already a branch olly started"}, nil
	}
	status, err := git(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
	if err != nil {
		return Branch{Name: cur}, err
	}
	if dirty := dirtyPaths(status); len(dirty) > 0 {
		return Branch{Name: cur, Reason: dirtyReason(dirty)}, nil
	}
	name, err := freeBranchName(ctx, dir, "olly/"+now.Format("2006-01-02")+"-"+slug(prompt))
	if err != nil {
		return Branch{Name: cur}, err
	}
	if _, err := git(ctx, dir, "checkout", "-q", "-b", name); err != nil {
		return Branch{Name: cur}, fmt.Errorf("create branch %s: %w", name, err)
	}
	return Branch{Created: true, Name: name}, nil
}

// git runs git in dir and returns its standard output; a failure carries
// git's own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errOut.String()); msg != "" {
			return out.String(), fmt.Errorf("git %s: %s: %w", args[0], msg, err)
		}
		return out.String(), fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}

// dirtyPaths lists the paths of `git status --porcelain=v1 -z`.
func dirtyPaths(status string) []string {
	var out []string
	fields := strings.Split(status, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		out = append(out, f[3:])
		if f[0] == 'R' || f[0] == 'C' {
			i++ // a rename's source path follows
		}
	}
	return out
}

func dirtyReason(paths []string) string {
	shown := paths
	if len(shown) > 3 {
		shown = shown[:3]
	}
	list := strings.Join(shown, ", ")
	if len(paths) > len(shown) {
		list += ", …"
	}
	noun := "file"
	if len(paths) > 1 {
		noun = "files"
	}
	return fmt.Sprintf("the working tree has uncommitted changes (%d %s: %s), which a new branch would mix with the agent's work; commit or stash them to let olly start a branch",
		len(paths), noun, list)
}

// freeBranchName returns base, or base-2, base-3 … when taken.
func freeBranchName(ctx context.Context, dir, base string) (string, error) {
	for i := 1; i < 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := git(ctx, dir, "show-ref", "--verify", "--quiet", "refs/heads/"+name); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return name, nil
		}
	}
	return "", fmt.Errorf("no free branch name like %s", base)
}

// slug turns a prompt into a branch-name fragment: lower-case ASCII words
// joined by hyphens, at most 40 characters and six words.
func slug(prompt string) string {
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	for _, r := range strings.ToLower(prompt) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			w.WriteRune(r)
		} else {
			flush()
		}
	}
	flush()
	out := ""
	for i, word := range words {
		if i == 6 {
			break
		}
		next := word
		if out != "" {
			next = out + "-" + word
		}
		if len(next) > 40 {
			if out == "" {
				out = word[:40]
			}
			break
		}
		out = next
	}
	if out == "" {
		return "task"
	}
	return out
}
