package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

type sessionsListOptions struct {
	*sessionsOptions
	All   bool
	Limit int
}

func newSessionsListCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsListOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List this workspace's sessions, most recent first",
		Long: `Lists the sessions of this workspace (--cwd, or the current directory), most
recently updated first: id, title, status, messages (prompts and answers, every
branch), pending changes (+N −N not yet kept or undone, see olly changes) and
when it was last updated.

A session whose olly process ended while it was generating (a crash, a
killed terminal) shows as interrupted; continue it with olly -p --resume ID.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSessionsList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.All, "all", "a", false, "list the sessions of every workspace")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 30, "most sessions to list (0: all)")
	return cmd
}

// sessionListJSON is one session in `olly sessions list --json`.
type sessionListJSON struct {
	store.Session
	// Messages counts prompts and answers (turns) in the log.
	Messages int   `json:"messages"`
	LastSeq  int64 `json:"lastSeq"`
	// Pending are the changes not yet kept or undone.
	Pending *store.DiffStats `json:"pending,omitempty"`
}

func runSessionsList(ctx context.Context, opts *sessionsListOptions) error {
	svc, st, dir, err := opts.listScope(ctx, opts.Limit, opts.All)
	if err != nil {
		return err
	}
	list, err := svc.Recent(ctx, dir, opts.Limit)
	if err != nil {
		return err
	}
	rows, err := listRows(ctx, st, list)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, rows)
	}
	if len(rows) == 0 {
		if opts.All {
			fmt.Fprintln(opts.IO.ErrOut, `No sessions yet. Start one with olly -p "…".`)
		} else {
			fmt.Fprintf(opts.IO.ErrOut, "No sessions in %s yet. Start one with olly -p \"…\" (olly sessions list --all lists every workspace's).\n", dir)
		}
		return nil
	}
	return writeSessionTable(opts.IO, rows, opts.All, opts.now())
}

// listRows adds the log counts and pending changes to sessions.
func listRows(ctx context.Context, st *store.Store, list []store.Session) ([]sessionListJSON, error) {
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	logs, err := st.SummarizeLogs(ctx, ids)
	if err != nil {
		return nil, err
	}
	pending, err := st.PendingStats(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sessionListJSON, 0, len(list))
	for _, s := range list {
		sum := logs[s.ID]
		row := sessionListJSON{Session: s, LastSeq: sum.LastSeq,
			Messages: sum.Counts[string(event.TypeUserMessage)] + sum.Counts[string(event.TypeTurnFinished)]}
		if p, ok := pending[s.ID]; ok {
			row.Pending = &p
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func writeSessionTable(streams *IOStreams, rows []sessionListJSON, withWorkspace bool, now time.Time) error {
	tw := tabwriter.NewWriter(streams.Out, 0, 0, 2, ' ', 0)
	head := "ID\tTITLE\tSTATUS\tMSGS\tCHANGES\tUPDATED"
	if withWorkspace {
		head += "\tWORKSPACE"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		changes := "-"
		if r.Pending != nil {
			changes = stat(r.Pending.Additions, r.Pending.Deletions)
		}
		title := r.Title
		if title == "" {
			title = "(untitled)"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%d\t%s\t%s", r.ID, cell(title, 50), statusWord(r.Status), r.Messages, changes, relativeTime(now, r.UpdatedAt))
		if withWorkspace {
			line += "\t" + r.Workspace
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// cell makes text fit one table cell: one line, at most n characters.
func cell(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type sessionsHistoryOptions struct {
	*sessionsOptions
	Search string
	All    bool
	Limit  int
}

func newSessionsHistoryCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsHistoryOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the prompts typed in this workspace, newest first",
		Long: `Every prompt given to olly is kept for recall, with its workspace (a prompt
equal to the one before it is kept once). --search finds prompts containing
every word given (as prefixes).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSessionsHistory(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Search, "search", "s", "", "only prompts with these words (best match first)")
	cmd.Flags().BoolVarP(&opts.All, "all", "a", false, "prompts of every workspace")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 50, "most prompts to list (0: all)")
	return cmd
}

func runSessionsHistory(ctx context.Context, opts *sessionsHistoryOptions) error {
	svc, _, dir, err := opts.listScope(ctx, opts.Limit, opts.All)
	if err != nil {
		return err
	}
	prompts, err := svc.Prompts(ctx, dir, opts.Search, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		if prompts == nil {
			prompts = []store.Prompt{}
		}
		return writeJSON(opts.IO.Out, prompts)
	}
	if len(prompts) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No prompts found.")
		return nil
	}
	now := opts.now()
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	for _, p := range prompts {
		line := relativeTime(now, p.At) + "\t" + cell(p.Text, 100)
		if opts.All {
			line += "\t" + p.Workspace
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
