// Package appsandbox_test checks, with the kernel sandbox, the sandbox
// the app really builds (app.SandboxSpec, app.NewMCPManager): that the
// places olly keeps from commands stay out of their reach. It is its own
// package so its TestMain can make the test binary the sandbox helper
// without changing how internal/app's own tests run.
package appsandbox_test

import (
	"os"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunHelperIfAsked()
	os.Exit(m.Run())
}
