package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/store"
)

func newChangesDiffCmd(opts *changesOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff [FILE]",
		Short: "Show the pending changes as a unified diff, hunks numbered",
		Long: `Show the pending changes as a unified diff. Each hunk header ends with the
hunk's number, which "olly changes keep|undo FILE --hunk N" takes. A file
changed by several agent runs shows the newest run's changes; the older
run's appear once those are kept or undone.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runChangesDiff(cmd.Context(), opts, args)
		},
	}
	cmd.Flags().StringVar(&opts.Checkpoint, "checkpoint", "", "only this checkpoint `ID`")
	return cmd
}

func runChangesDiff(ctx context.Context, opts *changesOptions, args []string) error {
	c, err := opts.open(ctx)
	if err != nil {
		return err
	}
	cps, err := c.pending(ctx, opts.Checkpoint)
	if err != nil {
		return err
	}
	files, err := c.m.Review(ctx, ids(cps))
	if err != nil {
		return err
	}
	if len(args) == 1 {
		paths := c.snapshotPath(args[0])
		files = slices.DeleteFunc(files, func(f checkpoint.FileReview) bool { return !slices.Contains(paths, f.Path) })
		if len(files) == 0 {
			return fmt.Errorf("%s has no pending changes (see olly changes)", args[0])
		}
	}
	if opts.JSON {
		if files == nil {
			files = []checkpoint.FileReview{}
		}
		return writeJSON(opts.IO.Out, files)
	}
	if len(files) == 0 {
		fmt.Fprintf(opts.IO.Out, "No pending changes in session %s.\n", c.sess.ID)
		return nil
	}
	for _, f := range files {
		fmt.Fprint(opts.IO.Out, colorDiff(checkpoint.Unified(f), opts.IO.Color))
		if n := len(f.EarlierCheckpoints); n > 0 {
			fmt.Fprintf(opts.IO.Out, "# %s was also changed by %d earlier run(s); those changes show once these are kept or undone.\n", f.Path, n)
		}
	}
	return nil
}

// colorDiff colours a unified diff for a terminal.
func colorDiff(diff string, color bool) string {
	if !color {
		return diff
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(diff, "\n") {
		code := ""
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
			code = "1"
		case strings.HasPrefix(l, "@@"):
			code = "36"
		case strings.HasPrefix(l, "+"):
			code = "32"
		case strings.HasPrefix(l, "-"):
			code = "31"
		}
		if code == "" || l == "" {
			b.WriteString(l)
			continue
		}
		body, nl := strings.CutSuffix(l, "\n")
		b.WriteString("\x1b[" + code + "m" + body + "\x1b[0m")
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func newChangesActCmd(opts *changesOptions, action string) *cobra.Command {
	verb, doc := "Keep", `Keeping accepts the changes as they are on disk; the file is not touched.`
	if action == checkpoint.ActionUndo {
		verb, doc = "Undo", `Undo reverts a change only where the file still holds what the agent
wrote; changes you edited since are reported and left in place (exit 1).
Undoing a file the agent created removes it, and the directories olly made
for it once they are empty.`
	}
	cmd := &cobra.Command{
		Use:   strings.ToLower(verb) + " [FILE] [--hunk N] [--all]",
		Short: verb + " the agent's changes to a file, one hunk of it, or all",
		Long: verb + ` the agent's pending changes: those to FILE (in every pending agent
run, or --checkpoint ID), hunk N of FILE as "olly changes diff FILE" numbers
it, or --all of them.

` + doc,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runChangesAct(cmd.Context(), opts, action, args)
		},
	}
	cmd.Flags().IntVar(&opts.Hunk, "hunk", 0, "only hunk `N` of FILE (see olly changes diff FILE)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "every pending change")
	cmd.Flags().StringVar(&opts.Checkpoint, "checkpoint", "", "only this checkpoint `ID`")
	return cmd
}

// changesActJSON is `olly changes keep|undo --json`.
type changesActJSON struct {
	Action    string                `json:"action"`
	Outcomes  []checkpoint.Outcome  `json:"outcomes"`
	Conflicts []checkpoint.Conflict `json:"conflicts"`
}

func runChangesAct(ctx context.Context, opts *changesOptions, action string, args []string) error {
	switch {
	case len(args) == 1 && opts.All:
		return usageError("give FILE or --all, not both")
	case len(args) == 0 && !opts.All:
		return usageError("say what to %s: a FILE, or --all", action)
	case opts.Hunk != 0 && len(args) == 0:
		return usageError("--hunk needs FILE: the hunk numbers belong to one file (see olly changes diff FILE)")
	case opts.Hunk < 0:
		return usageError("--hunk %d: hunks are numbered from 1 (see olly changes diff FILE)", opts.Hunk)
	}
	c, err := opts.open(ctx)
	if err != nil {
		return err
	}
	cps, err := c.pending(ctx, opts.Checkpoint)
	if err != nil {
		return err
	}
	sels, err := c.selectors(ctx, cps, action, args, opts.Hunk)
	if err != nil {
		return err
	}
	out := changesActJSON{Action: action, Outcomes: []checkpoint.Outcome{}, Conflicts: []checkpoint.Conflict{}}
	var opErr error
	for _, sel := range sels {
		o, err := apply(ctx, c.m, action, sel)
		if o != nil {
			out.Outcomes = append(out.Outcomes, *o)
			out.Conflicts = append(out.Conflicts, o.Conflicts()...)
		}
		if err != nil {
			opErr = err
			break
		}
	}
	if opErr != nil && len(out.Outcomes) == 0 {
		if errors.Is(opErr, checkpoint.ErrNoSuchHunk) || errors.Is(opErr, checkpoint.ErrWholeFileOnly) {
			return &ExitError{Code: ExitUsage, Err: opErr}
		}
		return opErr
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return err
		}
	} else {
		printOutcomes(opts.IO, out)
	}
	if opErr != nil {
		return opErr
	}
	if len(out.Conflicts) > 0 {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

func apply(ctx context.Context, m *checkpoint.Manager, action string, sel checkpoint.Selector) (*checkpoint.Outcome, error) {
	if action == checkpoint.ActionKeep {
		return m.Keep(ctx, sel)
	}
	return m.Undo(ctx, sel)
}

// selectors turns the arguments into keeps or undos. Undos run newest
// checkpoint first, so each one finds the file as its run left it.
func (c *changesSession) selectors(ctx context.Context, cps []store.Checkpoint, action string, args []string, hunk int) ([]checkpoint.Selector, error) {
	order := slices.Clone(cps)
	if action == checkpoint.ActionUndo {
		slices.Reverse(order)
	}
	var out []checkpoint.Selector
	if len(args) == 0 {
		for _, cp := range order {
			out = append(out, checkpoint.Selector{Checkpoint: cp.ID})
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no pending changes in session %s", c.sess.ID)
		}
		return out, nil
	}
	paths := c.snapshotPath(args[0])
	for _, cp := range order {
		snaps, err := c.st.Snapshots(ctx, cp.ID)
		if err != nil {
			return nil, err
		}
		for _, s := range snaps {
			if s.Status == store.FilePending && slices.Contains(paths, s.FilePath) {
				out = append(out, checkpoint.Selector{Checkpoint: cp.ID, Path: s.FilePath, Hunk: hunk})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no pending changes (see olly changes)", args[0])
	}
	if hunk > 0 {
		// Hunk numbers are those olly changes diff shows: the newest run's.
		newest := out[0]
		if action == checkpoint.ActionKeep {
			newest = out[len(out)-1]
		}
		return []checkpoint.Selector{newest}, nil
	}
	return out, nil
}

func printOutcomes(io *IOStreams, r changesActJSON) {
	done := "Kept"
	if r.Action == checkpoint.ActionUndo {
		done = "Undone"
	}
	for _, o := range r.Outcomes {
		for _, f := range o.Files {
			what := f.Path
			if f.Hunk > 0 {
				what = fmt.Sprintf("hunk %d of %s", f.Hunk, f.Path)
			}
			switch {
			case len(f.Conflicts) > 0 && f.Applied == 0:
				fmt.Fprintf(io.Out, "Not undone: %s\n", what)
			case len(f.Conflicts) > 0:
				fmt.Fprintf(io.Out, "Partly undone: %s (%d change(s) undone, %d left)\n", what, f.Applied, len(f.Conflicts))
			case f.Resolved:
				fmt.Fprintf(io.Out, "%s: %s (%s)\n", done, what, f.Status)
			default:
				fmt.Fprintf(io.Out, "%s: %s; %s left to review\n", done, what, stat(f.Additions, f.Deletions))
			}
		}
	}
	if len(r.Conflicts) == 0 {
		return
	}
	fmt.Fprintln(io.ErrOut, "These changes were not undone, because the file changed there after the agent wrote it:")
	for _, c := range r.Conflicts {
		fmt.Fprintf(io.ErrOut, "  %s: %s\n", c.Path, c)
	}
	fmt.Fprintln(io.ErrOut, "Keep them (olly changes keep FILE), or edit the files yourself.")
}

func ids(cps []store.Checkpoint) []string {
	out := make([]string, len(cps))
	for i, c := range cps {
		out[i] = c.ID
	}
	return out
}
