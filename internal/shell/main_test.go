package shell

import (
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The sandbox tests run this test binary as the sandbox helper.
	sandbox.RunHelperIfAsked()
	goleak.VerifyTestMain(m)
}
