package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// sessionsOptions are the inputs shared by `olly sessions` and its
// subcommands.
type sessionsOptions struct {
	IO    *IOStreams
	Store func(context.Context) (*store.Store, error)
	// Admin is the session service and checkpoint managers over Store.
	Admin func(context.Context) (*app.Admin, error)
	// Cwd returns --cwd ("" for the current directory), read when the
	// command runs.
	Cwd func() string
	// Embedder returns the embedding model for search (nil: none is
	// configured).
	Embedder func() (*store.Embedder, error)
	// Now is the clock for relative times; nil: time.Now.
	Now func() time.Time

	JSON bool
}

func newSessionsCmd(f *Factory) *cobra.Command {
	opts := &sessionsOptions{IO: f.IO, Store: f.Store, Admin: f.Admin, Cwd: func() string { return f.Flags.Cwd }, Embedder: f.searchEmbedder}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, search, export, branch and delete stored sessions",
		Long: `Every olly session is stored with its workspace. Without a subcommand,
olly sessions lists this workspace's sessions (olly sessions list).

Sessions are trees: olly sessions branch continues a session from an earlier
prompt (the old line stays), fork copies one into a new session, and tree
shows the branches. Continue a session in print mode with
olly -p --continue "…" (the latest here) or olly -p --resume ID "…".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSessionsList(cmd.Context(), &sessionsListOptions{sessionsOptions: opts, Limit: 30})
		},
	}
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(
		newSessionsListCmd(opts),
		newSessionsShowCmd(opts),
		newSessionsSearchCmd(opts),
		newSessionsExportCmd(opts),
		newSessionsDeleteCmd(opts),
		newSessionsRenameCmd(opts),
		newSessionsBranchCmd(opts),
		newSessionsForkCmd(opts),
		newSessionsTreeCmd(opts),
		newSessionsHistoryCmd(opts),
	)
	return cmd
}

// service is the session service over the database (app.Admin: no agent,
// the subcommands never run a turn).
func (o *sessionsOptions) service(ctx context.Context) (*session.Service, *store.Store, error) {
	a, err := o.Admin(ctx)
	if err != nil {
		return nil, nil, err
	}
	return a.Sessions, a.Store, nil
}

// find resolves a session id or unique prefix.
func (o *sessionsOptions) find(ctx context.Context, ref string) (*session.Service, *store.Store, *store.Session, error) {
	svc, st, err := o.service(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	sess, err := svc.Find(ctx, ref)
	if err != nil {
		return nil, nil, nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return svc, st, sess, nil
}

// listScope checks a listing's --limit and returns the service and the
// workspace it lists ("" with --all: every workspace).
func (o *sessionsOptions) listScope(ctx context.Context, limit int, all bool) (*session.Service, *store.Store, string, error) {
	if limit < 0 {
		return nil, nil, "", usageError("--limit %d: give a positive number, or 0 for all", limit)
	}
	svc, st, err := o.service(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	if all {
		return svc, st, "", nil
	}
	dir, err := o.workspace()
	if err != nil {
		return nil, nil, "", err
	}
	return svc, st, dir, nil
}

// workspace is the directory the command runs for: --cwd, or the current
// directory.
func (o *sessionsOptions) workspace() (string, error) {
	dir := o.Cwd()
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the workspace: %w (use --cwd)", err)
		}
		dir = wd
	}
	return session.WorkspaceKey(dir)
}

func (o *sessionsOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// parseSeq reads a --at value.
func parseSeq(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, usageError("--at %q: give the seq of a prompt, a positive number (olly sessions tree ID lists them)", s)
	}
	return n, nil
}

// relativeTime says how long ago t was, the way people say it.
func relativeTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d.Hours()), "hour") + " ago"
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return plural(int(d.Hours()/24), "day") + " ago"
	}
	return t.Local().Format("2006-01-02")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// statusWord is a session's status as the list shows it.
func statusWord(s store.Status) string {
	if s == "" {
		return string(store.StatusIdle)
	}
	return string(s)
}
