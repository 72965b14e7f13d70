// Package atomicfile replaces files so that a reader, or a crash, sees the
// old content or the new one, never half of each.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write replaces path with data: the data goes to a temporary file in the
// same directory (so the rename cannot cross file systems), which is
// synced, given perm and renamed over path. Renaming gives the file a new
// inode, so hard links to the old file keep the old content. The directory
// must exist. On failure nothing is left behind and path is unchanged.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if len(base) > 100 {
		// Room for the temporary file's suffix within NAME_MAX.
		base = base[:100]
	}
	f, err := os.CreateTemp(dir, "."+strings.TrimPrefix(base, ".")+".olly-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}
