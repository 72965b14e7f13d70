package exetrim_test

import (
	"testing"

	"github.com/olly-agent/olly/internal/exetrim"
	"github.com/olly-agent/olly/internal/sandbox"
)

func TestHelperArgIsSandboxs(t *testing.T) {
	if exetrim.HelperArg != sandbox.HelperArg {
		t.Fatalf("exetrim.HelperArg %q, sandbox.HelperArg %q", exetrim.HelperArg, sandbox.HelperArg)
	}
}
