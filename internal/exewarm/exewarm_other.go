//go:build !linux

package exewarm

// Save does nothing here: exetrim arms only on Linux.
func Save(path string) error { return nil }

// Prefault does nothing here.
func Prefault(path string) int { return 0 }

func prefault(path string) (int, string) { return 0, "" }
