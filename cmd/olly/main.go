// Command olly is a local-first coding agent.
package main

import (
	"os"

	"github.com/olly-agent/olly/internal/cli"
)

func main() {
	os.Exit(cli.Execute(&cli.Factory{IO: cli.System()}, os.Args[1:]))
}
