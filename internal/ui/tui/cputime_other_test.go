//go:build !linux

package tui

import "time"

// threadCPU is not measured outside Linux: the frame's CPU metric reads 0.
func threadCPU() time.Duration { return 0 }
