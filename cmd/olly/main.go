// Command olly is a local-first coding agent.
package main

import (
	"os"

	"github.com/olly-agent/olly/internal/cli"
	"github.com/olly-agent/olly/internal/exetrim"
	"github.com/olly-agent/olly/internal/procs"
	"github.com/olly-agent/olly/internal/sandbox"
)

func main() {
	// First, before settings or flags: olly re-executes itself as the
	// sandbox helper for every command it runs, and that must stay cheap.
	sandbox.RunHelperIfAsked()
	// Package initialisation is over: drop the pages of the executable
	// only it used (see internal/exetrim, imported first for that).
	exetrim.Trim()
	// One P while olly works sequentially; parallel sections widen it
	// (internal/procs).
	procs.Enable()
	stop := startProfiles()
	code := cli.Execute(&cli.Factory{IO: cli.System()}, os.Args[1:])
	stop()
	os.Exit(code)
}
