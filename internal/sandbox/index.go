package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/workspace"
)

// The index (a git folder's "index" file) lists the gitlinks, the
// entries of mode 160000 that make a path a submodule. It is the list git
// itself goes by (git status runs git in each populated gitlink, git
// submodule update fills them), and it lives in the protected git folder,
// so unlike .gitmodules a command cannot edit it.

// maxIndex bounds the index read (a big monorepo's is tens of MB).
const (
	maxIndex        = 64 << 20
	maxIndexEntries = 4 << 20
	maxGitlinks     = 256
)

// indexGitlinks returns the gitlink paths of the index of the git folder
// folder (relative, local ones only), at most maxGitlinks, and whether
// the index was read whole (false: missing, too big or malformed). With
// a split index (core.splitIndex) most entries are in a shared index
// (sharedindex.<hash>, which the index's link extension names): the
// gitlinks of the newest maxSharedIndexes shared indexes are added, so
// an older one's may be too (protecting more, never less).
func indexGitlinks(folder string) ([]string, bool) {
	if folder == "" {
		return nil, false
	}
	hash := hashSize(folder)
	links, read := indexFileGitlinks(filepath.Join(folder, "index"), hash)
	for _, shared := range sharedIndexes(folder) {
		more, _ := indexFileGitlinks(shared, hash)
		for _, l := range more {
			if len(links) < maxGitlinks && !slices.Contains(links, l) {
				links = append(links, l)
			}
		}
	}
	return links, read
}

// maxSharedIndexes bounds the shared indexes read (git keeps old ones
// for two weeks by default).
const maxSharedIndexes = 4

// sharedIndexes returns the paths of the git folder's sharedindex.*
// files, newest first, at most maxSharedIndexes.
func sharedIndexes(folder string) []string {
	entries, err := readDir(folder)
	if err != nil {
		return nil
	}
	type shared struct {
		path string
		mod  time.Time
	}
	var all []shared
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "sharedindex.") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			all = append(all, shared{filepath.Join(folder, e.Name()), fi.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b shared) int { return b.mod.Compare(a.mod) })
	var out []string
	for i := 0; i < len(all) && i < maxSharedIndexes; i++ {
		out = append(out, all[i].path)
	}
	return out
}

// indexFileGitlinks reads the gitlinks of one index file (see
// indexGitlinks).
func indexFileGitlinks(file string, hash int) ([]string, bool) {
	f, fi, err := workspace.OpenRegular(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi.Size() > maxIndex {
		return nil, false
	}
	links, err := parseGitlinks(io.LimitReader(f, maxIndex), hash)
	return links, err == nil
}

// hashSize is the object hash's size in bytes of the repository whose git
// folder is folder: 32 when its config (or its common folder's) says
// extensions.objectFormat = sha256, else 20.
func hashSize(folder string) int {
	for _, dir := range []string{folder, workspace.CommonDir(folder)} {
		if dir == "" {
			continue
		}
		f, _, err := workspace.OpenRegular(filepath.Join(dir, "config"))
		if err != nil {
			continue
		}
		v, ok := parseConfigKey(io.LimitReader(f, maxGitConfig), "extensions", "objectformat")
		f.Close()
		if ok {
			if strings.EqualFold(v, "sha256") {
				return 32
			}
			return 20
		}
	}
	return 20
}

var errIndex = errors.New("not a git index")

// parseGitlinks reads a git index (versions 2, 3 and 4; hashLen 20 for
// SHA-1, 32 for SHA-256) and returns the paths of its gitlink entries
// that are local (filepath.IsLocal). On a malformed index it returns the
// gitlinks read so far and an error.
func parseGitlinks(r io.Reader, hashLen int) ([]string, error) {
	br := bufio.NewReaderSize(r, 64<<10) // a path fits: git's are under 4096 bytes
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || string(hdr[:4]) != "DIRC" {
		return nil, errIndex
	}
	version, count := binary.BigEndian.Uint32(hdr[4:8]), binary.BigEndian.Uint32(hdr[8:12])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d: %w", version, errIndex)
	}
	var out []string
	var path []byte // this entry's path; in version 4 the previous one's first
	fixed := make([]byte, 40+hashLen+2)
	for i := uint32(0); i < count && i < maxIndexEntries; i++ {
		if _, err := io.ReadFull(br, fixed); err != nil {
			return out, errIndex
		}
		mode := binary.BigEndian.Uint32(fixed[24:28])
		flags := binary.BigEndian.Uint16(fixed[40+hashLen:])
		n := len(fixed)
		if flags&0x4000 != 0 { // extended flags (version 3 and up)
			if version < 3 {
				return out, errIndex
			}
			if _, err := br.Discard(2); err != nil {
				return out, errIndex
			}
			n += 2
		}
		var err error
		if path, err = readIndexPath(br, version, path, n); err != nil {
			return out, err
		}
		if mode>>12 == 0xE && filepath.IsLocal(string(path)) && len(out) < maxGitlinks {
			out = append(out, filepath.Clean(string(path)))
		}
	}
	return out, nil
}

// readIndexPath reads one entry's path into buf (reused): NUL-terminated
// and padded with NULs to a multiple of 8 bytes of the entry (n bytes
// before the path) in versions 2 and 3; in version 4, a number of bytes
// to drop from the end of the previous path (buf), then the rest,
// NUL-terminated, unpadded.
func readIndexPath(br *bufio.Reader, version uint32, buf []byte, n int) ([]byte, error) {
	path := buf[:0]
	if version == 4 {
		strip, err := indexVarint(br)
		if err != nil || strip > uint64(len(buf)) {
			return nil, errIndex
		}
		path = buf[:len(buf)-int(strip)]
	}
	rest, err := br.ReadSlice(0)
	if err != nil {
		return nil, errIndex // no NUL within the buffer: longer than any path git writes
	}
	path = append(path, rest[:len(rest)-1]...)
	if version < 4 {
		// The entry is padded with 1 to 8 NULs (one read already).
		pad := 8 - (n+len(rest)-1)%8
		if _, err := br.Discard(pad - 1); err != nil {
			return nil, errIndex
		}
	}
	return path, nil
}

// indexVarint reads the variable-length number of index version 4 (the
// offset encoding of git's varint.c).
func indexVarint(br *bufio.Reader) (uint64, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, err
	}
	v := uint64(c & 127)
	for c&128 != 0 {
		if c, err = br.ReadByte(); err != nil {
			return 0, err
		}
		if v >= 1<<56 {
			return 0, errIndex
		}
		v = (v+1)<<7 | uint64(c&127)
	}
	return v, nil
}
