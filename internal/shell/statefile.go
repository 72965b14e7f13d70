package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/olly-agent/olly/internal/workspace"
)

// State files live in a bash's own folder, which that bash's commands
// (and the jobs they leave running) may write: olly opens what it reads
// there without following a link or blocking on a FIFO, and writes there
// only through a file it has just created itself, so a link planted at
// the file's name, or at the temporary name beside it, is neither
// followed nor kept. copyState, readStateFile and writeStateFile are the
// one open-and-check of each kind.

// openStateFile opens a state file a bash saved for reading, refusing a
// link, anything but a regular file and a file over limit.
func openStateFile(path string, limit int64) (*os.File, int64, error) {
	f, fi, err := workspace.OpenRegularNoFollow(path)
	if err != nil {
		if errors.Is(err, workspace.ErrNotRegular) {
			err = errors.New("the saved state is not a regular file")
		}
		return nil, 0, err
	}
	if fi.Size() > limit {
		_ = f.Close()
		return nil, 0, fmt.Errorf("the saved state is larger than %d MiB", limit>>20)
	}
	return f, fi.Size(), nil
}

// readStateFile reads a state file a bash saved (openStateFile), in one
// read of the size it has (a read more sees its end).
func readStateFile(path string, limit int64) ([]byte, error) {
	f, size, err := openStateFile(path, limit)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	_, err = buf.ReadFrom(io.LimitReader(f, limit))
	return buf.Bytes(), err
}

// copyState copies a state file written in a bash's folder, which that
// bash's commands may have replaced (openStateFile), to dst
// (writeStateFile).
func copyState(src, dst string) error {
	in, _, err := openStateFile(src, maxStateBytes)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	return writeStateFile(dst, func(w io.Writer) error {
		_, err := io.Copy(w, io.LimitReader(in, maxStateBytes))
		return err
	})
}

// writeStateFile writes dst through dst.tmp, created new by olly
// (O_CREAT|O_EXCL|O_NOFOLLOW, after removing what was there: a link
// planted there in between makes the create fail rather than write
// through it), filled by fill and renamed over dst (a rename replaces a
// link at dst itself, never its target).
func writeStateFile(dst string, fill func(io.Writer) error) error {
	tmp := dst + ".tmp"
	_ = os.Remove(tmp)
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	err = fill(out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
