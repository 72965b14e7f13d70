package mcp

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that closing a Manager leaves no goroutine behind: the
// connection watchers and the SDK's readers end with their sessions.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
