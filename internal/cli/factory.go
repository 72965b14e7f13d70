package cli

import (
	"github.com/spf13/cobra"
)

// Factory hands commands what they need, built lazily so that a command
// which needs no model server (olly --version, olly config path) never
// starts one. internal/app fills it; tests fill it with fakes.
type Factory struct {
	IO *IOStreams

	// Flags are the global flags, filled when the command line is parsed.
	Flags GlobalFlags
}

// GlobalFlags are the flags every command accepts.
type GlobalFlags struct {
	// Cwd is the workspace directory (--cwd); empty means the current one.
	Cwd string
}

func (f *Factory) bindGlobalFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&f.Flags.Cwd, "cwd", "", "workspace `directory` (default: the current directory)")
}
