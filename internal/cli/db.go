package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/store"
)

// dbEnv names the environment variable that points olly at a database file.
const dbEnv = "OLLY_DB"

// dbOptions are shared by the `olly db` subcommands.
type dbOptions struct {
	IO *IOStreams
	// DB is the --db flag.
	DB string
	// Database resolves the default database file ($OLLY_DB, then the
	// data directory's olly.db).
	Database func() (string, error)
	Now      func() time.Time
}

func newCmdDB(f *Factory) *cobra.Command {
	opts := &dbOptions{IO: f.IO, Database: f.DatabasePath, Now: time.Now}
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Inspect, back up or reset olly's database",
		Long: `olly keeps sessions, checkpoints, the model cache and prompt history in one
SQLite database. olly never deletes or recreates it by itself: when it cannot
open the file, these commands check it, copy it, or move it aside.`,
		Args: cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&opts.DB, "db", "",
		"database `file` (default: $"+dbEnv+", then olly.db in the data directory)")
	cmd.AddCommand(newCmdDBPath(opts), newCmdDBCheck(opts), newCmdDBBackup(opts), newCmdDBReset(opts))
	return cmd
}

// path resolves the database file: --db, then the default.
func (o *dbOptions) path() (string, error) {
	p := o.DB
	if p == "" {
		var err error
		if p, err = o.Database(); err != nil {
			return "", err
		}
	}
	return filepath.Abs(p)
}

func newCmdDBPath(opts *dbOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print the database file's path",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runDBPath(opts)
		},
	}
}

func runDBPath(opts *dbOptions) error {
	p, err := opts.path()
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, p)
	return nil
}

func newCmdDBCheck(opts *dbOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check the database's integrity, foreign keys and schema version",
		Long: `Runs SQLite's integrity_check and foreign_key_check and compares the schema
version with this olly's. It only reads. Exits 1 when it finds a problem.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDBCheck(cmd.Context(), opts)
		},
	}
}

func runDBCheck(ctx context.Context, opts *dbOptions) error {
	p, err := opts.path()
	if err != nil {
		return err
	}
	r, err := store.Check(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("no database at %s (olly creates it on first use)", p)}
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "database:       %s\n", r.Path)
	fmt.Fprintf(out, "schema version: %d (this olly knows up to %d)\n", r.Version, r.Known)
	fmt.Fprintf(out, "integrity:      %s\n", listOrOK(r.Integrity))
	fmt.Fprintf(out, "foreign keys:   %s\n", listOrOK(r.ForeignKeys))
	if r.OK() {
		return nil
	}
	switch {
	case r.Foreign:
		fmt.Fprintln(out, "\nThis file was not created by olly: point olly at another file with --db or "+dbEnv+".")
	case r.Version > r.Known:
		fmt.Fprintln(out, "\nA newer olly wrote this database: upgrade olly to use it.")
	default:
		fmt.Fprintln(out, "\nThe database is damaged. Copy what is readable with `olly db backup`,"+
			"\nthen `olly db reset` moves the file aside (nothing is deleted) so olly starts afresh.")
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("database %s has problems", r.Path)}
}

func listOrOK(problems []string) string {
	if len(problems) == 0 {
		return "ok"
	}
	return fmt.Sprintf("%d problem(s)\n  %s", len(problems), strings.Join(problems, "\n  "))
}

func newCmdDBBackup(opts *dbOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "backup [FILE]",
		Short: "Copy the database to FILE while olly may be running",
		Long: `Writes a consistent copy of the database with SQLite's VACUUM INTO. It works
while other olly processes use the database. FILE must not exist; the default
is olly.backup-YYYYMMDD-HHMMSS.db beside the database.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dest := ""
			if len(args) == 1 {
				dest = args[0]
			}
			return runDBBackup(cmd.Context(), opts, dest)
		},
	}
}

func runDBBackup(ctx context.Context, opts *dbOptions, dest string) error {
	p, err := opts.path()
	if err != nil {
		return err
	}
	if dest == "" {
		dest = store.BackupName(p, opts.Now())
	}
	if dest, err = filepath.Abs(dest); err != nil {
		return err
	}
	if err := store.Backup(ctx, p, dest); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	fmt.Fprintf(opts.IO.Out, "backed up %s to %s\n", p, dest)
	return nil
}

type dbResetOptions struct {
	*dbOptions
	Yes bool
}

func newCmdDBReset(parent *dbOptions) *cobra.Command {
	opts := &dbResetOptions{dbOptions: parent}
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Move the database aside so olly starts with a new one",
		Long: `Renames the database (and its -wal and -shm files) to
olly.reset-YYYYMMDD-HHMMSS.db beside it. Nothing is deleted: move the files
back to return to them. Refuses while another olly has the database open.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runDBReset(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func runDBReset(opts *dbResetOptions) error {
	p, err := opts.path()
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("no database at %s: nothing to reset", p)}
	}
	if !opts.Yes {
		if !opts.IO.StdinTTY {
			return usageError("`olly db reset` moves %s aside (nothing is deleted); pass --yes to confirm", p)
		}
		fmt.Fprintf(opts.IO.ErrOut, "Move %s aside so olly starts with a new database? Nothing is deleted. [y/N] ", p)
		answer, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(opts.IO.ErrOut, "Nothing was moved.")
			return nil
		}
	}
	moved, err := store.MoveAside(p, opts.Now())
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	for _, m := range moved {
		fmt.Fprintf(opts.IO.Out, "moved to %s\n", m)
	}
	fmt.Fprintf(opts.IO.Out, "olly will create a new database at %s; move the files back to return to the old one.\n", p)
	return nil
}
