package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

type sessionsDeleteOptions struct {
	*sessionsOptions
	Yes bool
}

func newSessionsDeleteCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsDeleteOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:   "delete ID...",
		Short: "Delete sessions with their events and checkpoints",
		Long: `Deletes each session with its events, checkpoints and search vectors. This
cannot be undone (olly db backup makes a copy first). olly asks at a terminal;
elsewhere pass --yes. A session generating in a running olly is not deleted;
an interrupted one (its process is gone) is. Forks of a deleted session keep
their own copy of its events.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessionsDelete(cmd.Context(), opts, args)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// deleteJSON is one session in `olly sessions delete --json`.
type deleteJSON struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Deleted bool   `json:"deleted"`
	Error   string `json:"error,omitempty"`
}

func runSessionsDelete(ctx context.Context, opts *sessionsDeleteOptions, refs []string) error {
	svc, _, err := opts.service(ctx)
	if err != nil {
		return err
	}
	// Resolve every id before deleting any: a typo stops the command
	// before it has done anything.
	var targets []*store.Session
	seen := map[string]bool{}
	for _, ref := range refs {
		sess, err := svc.Find(ctx, ref)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		if !seen[sess.ID] {
			seen[sess.ID] = true
			targets = append(targets, sess)
		}
	}
	if !opts.Yes {
		ok, err := confirmDelete(opts.IO, targets)
		if err != nil || !ok {
			return err
		}
	}
	var results []deleteJSON
	failed := 0
	for _, sess := range targets {
		r := deleteJSON{ID: sess.ID, Title: sess.Title}
		if err := svc.Delete(ctx, sess.ID); err != nil {
			r.Error = err.Error()
			failed++
			if !opts.JSON {
				fmt.Fprintf(opts.IO.ErrOut, "olly: not deleted: %v\n", err)
			}
		} else {
			r.Deleted = true
			if !opts.JSON {
				fmt.Fprintf(opts.IO.Out, "deleted %s%s\n", sess.ID, titled(sess.Title))
			}
		}
		results = append(results, r)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, results); err != nil {
			return err
		}
	}
	if failed > 0 {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

// confirmDelete asks at a terminal; without one it refuses, so a script
// never deletes by accident.
func confirmDelete(streams *IOStreams, targets []*store.Session) (bool, error) {
	if !streams.StdinTTY {
		return false, usageError("olly sessions delete deletes sessions for good; pass --yes to confirm (there is no terminal to ask at)")
	}
	for _, s := range targets {
		fmt.Fprintf(streams.ErrOut, "  %s%s\n", s.ID, titled(s.Title))
	}
	what := "this session"
	if len(targets) > 1 {
		what = fmt.Sprintf("these %d sessions", len(targets))
	}
	fmt.Fprintf(streams.ErrOut, "Delete %s with their events and checkpoints? This cannot be undone. [y/N] ", what)
	answer, _ := bufio.NewReader(streams.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		fmt.Fprintln(streams.ErrOut, "Nothing was deleted.")
		return false, nil
	}
	return true, nil
}

func newSessionsRenameCmd(opts *sessionsOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "rename ID TITLE",
		Short: "Give a session a new title",
		Long: `Sets the session's title. The change is recorded in the session's history
(a title_changed event), like the titles olly gives.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			svc, _, sess, err := opts.find(ctx, args[0])
			if err != nil {
				return err
			}
			renamed, err := svc.Rename(ctx, sess.ID, strings.Join(args[1:], " "))
			if err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			if opts.JSON {
				return writeJSON(opts.IO.Out, renamed)
			}
			fmt.Fprintf(opts.IO.Out, "renamed %s to %q\n", renamed.ID, renamed.Title)
			return nil
		},
	}
}

type sessionsAtOptions struct {
	*sessionsOptions
	At string
}

func newSessionsBranchCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsAtOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:   "branch ID --at SEQ",
		Short: "Continue a session from an earlier prompt; the old line stays",
		Long: `Moves the session back to just before the prompt at SEQ (the seqs are shown by
olly sessions tree ID and olly sessions show ID): the next prompt you give,
olly -p --resume ID "…", takes that prompt's place and starts a new branch.
Nothing is deleted: the old branch stays in the session, and olly sessions
tree shows both.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessionsBranch(cmd.Context(), opts, args[0])
		},
	}
	cmd.Flags().StringVar(&opts.At, "at", "", "the `SEQ` of the prompt to branch at (required)")
	return cmd
}

func runSessionsBranch(ctx context.Context, opts *sessionsAtOptions, ref string) error {
	if opts.At == "" {
		return usageError("olly sessions branch needs --at SEQ, the prompt to branch at (olly sessions tree %s lists them)", ref)
	}
	seq, err := parseSeq(opts.At)
	if err != nil {
		return err
	}
	svc, _, sess, err := opts.find(ctx, ref)
	if err != nil {
		return err
	}
	bp, err := svc.Branch(ctx, sess.ID, seq)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, bp)
	}
	fmt.Fprintf(opts.IO.Out, "Session %s now continues from just before prompt %d (turn %d):\n  %s\n", sess.ID, bp.Seq, bp.Turn, cell(bp.Prompt, 100))
	fmt.Fprintf(opts.IO.Out, "The next prompt starts a new branch there, and the old branch stays (olly sessions tree %s):\n  olly -p --resume %s \"…\"\n", sess.ID, sess.ID)
	return nil
}

func newSessionsForkCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsAtOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:   "fork ID [--at SEQ]",
		Short: "Copy a session into a new one, whole or up to an earlier prompt",
		Long: `Makes a new session from the current branch of ID, recording where it came
from. With --at SEQ (a prompt's seq, from olly sessions tree ID) the copy
stops just before that prompt, so the fork's first prompt takes its place.
The original session is not changed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessionsFork(cmd.Context(), opts, args[0])
		},
	}
	cmd.Flags().StringVar(&opts.At, "at", "", "copy up to just before the prompt at `SEQ` (default: the whole current branch)")
	return cmd
}

// forkJSON is `olly sessions fork --json`.
type forkJSON struct {
	Session     *store.Session       `json:"session"`
	BranchPoint *session.BranchPoint `json:"branchPoint,omitempty"`
}

func runSessionsFork(ctx context.Context, opts *sessionsAtOptions, ref string) error {
	var seq int64
	if opts.At != "" {
		var err error
		if seq, err = parseSeq(opts.At); err != nil {
			return err
		}
	}
	svc, _, sess, err := opts.find(ctx, ref)
	if err != nil {
		return err
	}
	fork, bp, err := svc.Fork(ctx, sess.ID, seq)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, forkJSON{Session: fork, BranchPoint: bp})
	}
	fmt.Fprintf(opts.IO.Out, "Forked %s into %s", sess.ID, fork.ID)
	if bp != nil {
		fmt.Fprintf(opts.IO.Out, ", up to just before prompt %d:\n  %s\n", bp.Seq, cell(bp.Prompt, 100))
	} else {
		fmt.Fprintln(opts.IO.Out, ".")
	}
	fmt.Fprintf(opts.IO.Out, "Continue it with: olly -p --resume %s \"…\"\n", fork.ID)
	return nil
}

func newSessionsTreeCmd(opts *sessionsOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "tree ID",
		Short: "Show a session's branches as a tree of prompts",
		Long: `Shows every prompt of the session with its seq, indented under the prompt it
followed, one line of children per branch. The current branch is marked *,
and its last prompt "← current": the next prompt follows that prompt's answer.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			svc, _, sess, err := opts.find(ctx, args[0])
			if err != nil {
				return err
			}
			tree, err := svc.Tree(ctx, sess.ID)
			if err != nil {
				return err
			}
			if opts.JSON {
				return writeJSON(opts.IO.Out, tree)
			}
			writeTree(opts.IO, sess, tree)
			return nil
		},
	}
}

func writeTree(streams *IOStreams, sess *store.Session, tree *session.PromptTree) {
	title := sess.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(streams.Out, "%s  %s\n", sess.ID, cell(title, 60))
	if len(tree.Roots) == 0 {
		fmt.Fprintln(streams.Out, "  (no prompts yet)")
		return
	}
	var walk func(n *session.PromptNode, prefix string, last bool, depth int)
	walk = func(n *session.PromptNode, prefix string, last bool, depth int) {
		branch, next := "├─ ", "│  "
		if last {
			branch, next = "└─ ", "   "
		}
		if depth == 0 {
			branch, next = "", ""
		}
		mark := "  "
		if n.OnPath {
			mark = "* "
		}
		line := fmt.Sprintf("%s%s%s#%d %s", mark, prefix, branch, n.Seq, cell(n.Text, 70))
		if n.Seq == tree.Current {
			line += "  ← current"
		}
		fmt.Fprintln(streams.Out, line)
		for i, c := range n.Children {
			walk(c, prefix+next, i == len(n.Children)-1, depth+1)
		}
	}
	for _, r := range tree.Roots {
		walk(r, "", true, 0)
	}
	if tree.Current == 0 {
		fmt.Fprintln(streams.Out, "  (the next prompt starts a new branch from the beginning)")
	}
}
