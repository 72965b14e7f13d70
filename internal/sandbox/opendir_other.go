//go:build !unix

package sandbox

import "os"

// openDir opens the folder dir for listing.
func openDir(dir string) (*os.File, error) { return os.Open(dir) }
