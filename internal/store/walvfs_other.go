//go:build !linux

package store

// walVFSNameOrDefault: the WAL frame-coalescing VFS (walvfs_linux.go) is
// Linux-only; elsewhere the writer uses SQLite's default VFS.
func walVFSNameOrDefault() string { return "" }
