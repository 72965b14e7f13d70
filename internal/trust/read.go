package trust

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/olly-agent/olly/internal/workspace"
)

// FileName is the trust store's file name in olly's state directory.
const FileName = "trust.json"

// Path is the trust store's file in stateDir (olly's state directory):
// the one place its location is decided. The state directory is a path
// the sandbox keeps every command from reading or writing, so the model
// cannot trust what the repository brings.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// ReadConfig reads a configuration file that names programs to run (a
// project's .mcp.json or hook settings), at most max bytes. Such files come
// with the workspace, which is not trusted: a file larger than max is
// refused rather than read into memory, and anything but a regular file
// (a FIFO would block the open forever, a device never end) is refused.
// A missing file gives an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadConfig(path string, max int64) ([]byte, error) {
	// One open, then a look at what was opened: a Stat before a plain
	// Open would let a FIFO swapped in between block the open forever.
	f, fi, err := workspace.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, tooLarge(path, max)
	}
	// The file may have grown since the Stat: read one byte past the cap
	// to tell.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path, max)
	}
	return data, nil
}

// ErrTooLarge is wrapped by ReadConfig's error for a file over its cap.
var ErrTooLarge = errors.New("file too large")

func tooLarge(path string, max int64) error {
	return fmt.Errorf("%s: larger than %d bytes; not read: %w", path, max, ErrTooLarge)
}
