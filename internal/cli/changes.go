package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/store"
)

// changesOptions are the inputs shared by `olly changes` and its
// subcommands.
type changesOptions struct {
	IO    *IOStreams
	Store func(context.Context) (*store.Store, error)
	// Admin is the session service and checkpoint managers over Store.
	Admin func(context.Context) (*app.Admin, error)
	// Cwd returns --cwd ("" for the current directory), read when the
	// command runs.
	Cwd func() string

	Session    string
	Checkpoint string
	JSON       bool
	// keep and undo
	Hunk int
	All  bool
}

func newChangesCmd(f *Factory) *cobra.Command {
	opts := &changesOptions{IO: f.IO, Store: f.Store, Admin: f.Admin, Cwd: func() string { return f.Flags.Cwd }}
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "Review, keep or undo the agent's file changes",
		Long: `List the changes the agent made in the latest session of this workspace
(or --session ID) that are not kept or undone yet: each agent run is a
checkpoint, with its files and their +N −N.

Undo never overwrites your own edits: a change is undone only where the
file still holds what the agent wrote, and the rest is reported.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runChangesList(cmd.Context(), opts)
		},
	}
	cmd.PersistentFlags().StringVar(&opts.Session, "session", "", "session `ID` (default: the latest in this workspace)")
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(newChangesDiffCmd(opts), newChangesActCmd(opts, checkpoint.ActionKeep), newChangesActCmd(opts, checkpoint.ActionUndo))
	return cmd
}

// changesSession is the session the command works on, with a manager for
// its workspace.
type changesSession struct {
	st   *store.Store
	sess *store.Session
	m    *checkpoint.Manager
	cwd  string // the directory FILE arguments are relative to
}

// open finds the session: --session, else the latest session of the
// workspace directory or the nearest parent that has one.
func (o *changesOptions) open(ctx context.Context) (*changesSession, error) {
	a, err := o.Admin(ctx)
	if err != nil {
		return nil, err
	}
	st := a.Store
	cwd, err := changesDir(o.Cwd())
	if err != nil {
		return nil, err
	}
	var sess *store.Session
	if o.Session != "" {
		if sess, err = st.Session(ctx, o.Session); err != nil {
			return nil, fmt.Errorf("%w (list sessions with olly sessions)", err)
		}
	} else if sess, err = latestSessionAbove(ctx, st, cwd); err != nil {
		return nil, err
	}
	root := sess.Workspace
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return &changesSession{st: st, sess: sess, m: a.Checkpoints(root), cwd: cwd}, nil
}

// changesDir is the workspace directory, absolute with links resolved.
func changesDir(flag string) (string, error) {
	dir := flag
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the workspace: %w (use --cwd)", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

func latestSessionAbove(ctx context.Context, st *store.Store, dir string) (*store.Session, error) {
	for d := dir; ; d = filepath.Dir(d) {
		sess, err := st.LatestSession(ctx, d)
		if err == nil {
			return sess, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("no olly session in %s or above it: run olly there first, or pass --session ID", dir)
		}
	}
}

// pending returns the session's checkpoints that still have pending
// files, oldest first; --checkpoint narrows it to one.
func (c *changesSession) pending(ctx context.Context, only string) ([]store.Checkpoint, error) {
	cps, err := c.st.Checkpoints(ctx, c.sess.ID)
	if err != nil {
		return nil, err
	}
	var out []store.Checkpoint
	for _, cp := range cps {
		if only != "" && cp.ID != only {
			continue
		}
		if only != "" || cp.Status == store.CheckpointPending {
			out = append(out, cp)
		}
	}
	if only != "" && len(out) == 0 {
		return nil, usageError("session %s has no checkpoint %s (see olly changes)", c.sess.ID, only)
	}
	return out, nil
}

// changesListJSON is `olly changes --json`.
type changesListJSON struct {
	SessionID   string                       `json:"sessionId"`
	Workspace   string                       `json:"workspace"`
	Additions   int                          `json:"additions"`
	Deletions   int                          `json:"deletions"`
	Files       int                          `json:"files"`
	Checkpoints []checkpoint.CheckpointStats `json:"checkpoints"`
}

func runChangesList(ctx context.Context, opts *changesOptions) error {
	c, err := opts.open(ctx)
	if err != nil {
		return err
	}
	ch, err := c.m.SessionChanges(ctx, c.sess.ID)
	if err != nil {
		return err
	}
	out := changesListJSON{SessionID: c.sess.ID, Workspace: c.sess.Workspace, Checkpoints: ch.Checkpoints,
		Additions: ch.Pending.Additions, Deletions: ch.Pending.Deletions, Files: ch.Pending.Files}
	if opts.JSON {
		return writeJSON(opts.IO.Out, out)
	}
	if len(out.Checkpoints) == 0 {
		fmt.Fprintf(opts.IO.Out, "No pending changes in session %s.\n", c.sess.ID)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "Session %s%s: %d pending file(s), %s\n", c.sess.ID, titled(c.sess.Title), out.Files, stat(out.Additions, out.Deletions))
	for _, cp := range out.Checkpoints {
		fmt.Fprintf(opts.IO.Out, "\nCheckpoint %s (turn %d, %s) %s %s\n", cp.ID, cp.Turn,
			cp.CreatedAt.Local().Format("2006-01-02 15:04"), cp.Status, stat(cp.TotalAdditions, cp.TotalDeletions))
		tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
		for _, f := range cp.Files {
			counts := ""
			if f.Status == store.FilePending {
				counts = stat(f.Additions, f.Deletions)
			}
			fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", actionLetter(f.Action), f.Path, counts, f.Status)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func titled(title string) string {
	if title == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", title)
}

func stat(adds, dels int) string { return fmt.Sprintf("+%d −%d", adds, dels) }

func actionLetter(action string) string {
	if action == "created" {
		return "A"
	}
	return "M"
}

// snapshotPath turns a FILE argument into a snapshot path: relative to the
// directory the command runs in, or as the workspace lists it.
func (c *changesSession) snapshotPath(arg string) []string {
	arg = strings.TrimSpace(arg)
	var out []string
	abs := filepath.FromSlash(arg)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(c.cwd, abs)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	out = append(out, c.m.RelPath(abs))
	if p := filepath.ToSlash(filepath.Clean(filepath.FromSlash(arg))); p != out[0] {
		out = append(out, p)
	}
	return out
}
