// Package cli holds olly's commands. Each command has an options struct and
// a run function that takes its I/O streams, in the style of the GitHub CLI,
// so every command is testable without a terminal. The commands only parse
// input and render output; the work is done by the services internal/app
// builds.
package cli

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is olly's version, set at link time with
// -ldflags "-X github.com/olly-agent/olly/internal/cli.Version=v1.2.3".
var Version = ""

// version returns Version, or the module version the binary was built from,
// or "dev".
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// ExitError carries a process exit code through cobra. Commands return it
// when the code matters (print mode: 1 failure, 2 usage, 130 interrupted).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit codes shared by all commands.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// usageError marks an error as the person's input being wrong (exit 2).
func usageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// NewRootCmd builds the olly command tree around f.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "olly",
		Short: "A local-first coding agent for models you run yourself",
		Long: `olly drives a model served by Ollama (or any OpenAI-compatible server) to
read, search, edit and run code in your workspace. Every change is
checkpointed, every risky step is approved, and every session is stored.

  olly -p "add a hello world main.go and run it"    run one task and print the answer
  echo "explain cmd/olly" | olly -p                  the task can come on stdin
  olly -p --output json "fix the failing test"       every event as one JSON line
  olly -p --continue "now add a test for it"         continue the latest session here
  olly -p --resume 01JD5ZQ8 "…"                      continue that session (--resume alone: pick one)
  olly sessions                                      list, show, search, export, branch sessions
  olly -p "/plan add caching"                         plan read-only; then: olly -p --continue /implement
  olly changes                                       review what the agent changed: keep or undo it
  olly --mode rpc                                    JSON lines on stdin/stdout, for editors (docs/rpc.md)
  olly serve --open                                  the chat in a browser (docs/web.md)

Exit status in print mode: 0 the agent finished, 1 it failed or stopped short,
2 a usage or settings error, 130 interrupted.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("olly {{.Version}}\n")
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: err}
	})
	f.bindGlobalFlags(root)
	popts := &printOptions{}
	bindPrintFlags(root, popts)
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error { return runRoot(cmd, f, popts, args) }
	bindModeFlags(root, f, popts) // --mode rpc (rpc.go)

	root.AddCommand(
		// Subcommands register here, one line each.
		newConfigCmd(f),
		newModelsCmd(f),
		newDoctorCmd(f),
		newCmdDB(f),
		newChangesCmd(f),
		newSessionsCmd(f),
		newLSPCmd(f),
		newServeCmd(f),
		newHooksCmd(f),
		newMCPCmd(f),
	)
	return root
}

// Execute runs olly with args and returns the process exit code.
func Execute(f *Factory, args []string) int {
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := root.Execute()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(f.IO.ErrOut, "olly:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(f.IO.ErrOut, "olly:", err)
	return ExitFailure
}
