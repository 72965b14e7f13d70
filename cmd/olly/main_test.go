package main

import (
	"os"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunHelperIfAsked()
	os.Exit(m.Run())
}
