package rpcclient

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportsOnlyTheProtocol keeps rpcclient embeddable: a program that
// drives olly must not pull in SQLite, go-git, the shell parser or any
// other part of olly's internals. Its dependencies are the standard
// library, rpcproto and event, nothing else.
func TestImportsOnlyTheProtocol(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; this test lists rpcclient's dependencies with `go list -deps`")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	var got []string
	for l := range strings.Lines(string(out)) {
		if l = strings.TrimSpace(l); l != "" {
			got = append(got, l)
		}
	}
	slices.Sort(got)
	want := []string{
		"github.com/olly-agent/olly/event",
		"github.com/olly-agent/olly/rpcclient",
		"github.com/olly-agent/olly/rpcproto",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rpcclient depends on %q, want only the standard library and %q", got, want)
	}
}
