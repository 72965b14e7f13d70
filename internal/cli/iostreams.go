package cli

import (
	"bytes"
	"io"
	"os"
)

// IOStreams are the standard streams a command reads and writes, with what
// is known about them. Commands take them as arguments so tests can run them
// without a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// StdinTTY, StdoutTTY and StderrTTY say whether each stream is a
	// terminal.
	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool
	// Color says whether Out may carry ANSI colour (a terminal, and NO_COLOR
	// unset).
	Color bool
}

// System returns the process's own streams.
func System() *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		StdinTTY:  isTerminal(os.Stdin),
		StdoutTTY: isTerminal(os.Stdout),
		StderrTTY: isTerminal(os.Stderr),
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	s.Color = s.StdoutTTY && !noColor && os.Getenv("TERM") != "dumb"
	return s
}

// Test returns streams backed by buffers: stdin reads in, and the returned
// buffers collect stdout and stderr. None is a terminal.
func Test(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: bytes.NewBufferString(in), Out: out, ErrOut: errOut}, out, errOut
}

// isTerminal reports whether f is a character device, without a terminal
// library: enough to tell a person at a terminal from a pipe or a file.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}
