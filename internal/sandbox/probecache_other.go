//go:build !linux

package sandbox

import "os"

// fileID: only Linux probes .git's mount namespace, so only it needs one.
func fileID(os.FileInfo) string { return "" }
