package shell

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// spill keeps a command's sanitized output in memory while it is small and
// in an artifact file once it is not. Outputs that fit the model's view
// whole never create a file; outputs that do not are always complete on
// disk, so the truncation marker can point at them.
type spill struct {
	dir     string
	pattern string // os.CreateTemp pattern
	limit   int    // bytes held in memory before the file is created

	mem  []byte
	f    *os.File
	w    *bufio.Writer
	path string
	err  error
}

func (s *spill) Write(p []byte) {
	if s.err != nil {
		return
	}
	if s.f == nil {
		if len(s.mem)+len(p) <= s.limit {
			s.mem = append(s.mem, p...)
			return
		}
		if !s.open() {
			return
		}
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = fmt.Errorf("write %s: %w", s.path, err)
	}
}

func (s *spill) open() bool {
	f, err := os.CreateTemp(s.dir, s.pattern)
	if err != nil {
		s.err = fmt.Errorf("create output artifact in %s: %w", s.dir, err)
		return false
	}
	s.f, s.path = f, f.Name()
	s.w = bufio.NewWriterSize(f, 64<<10)
	_, err = s.w.Write(s.mem)
	s.mem = nil
	if err != nil {
		s.err = fmt.Errorf("write %s: %w", s.path, err)
	}
	return true
}

// finish closes the artifact. With keep, output still in memory is written
// to a file first, so that a truncated view always has its full text on
// disk. It returns the artifact's path ("" when there is none).
func (s *spill) finish(keep bool) (string, error) {
	if s.f == nil {
		if !keep || s.err != nil || !s.open() {
			return "", s.err
		}
	}
	if err := s.w.Flush(); err != nil && s.err == nil {
		s.err = fmt.Errorf("write %s: %w", s.path, err)
	}
	if err := s.f.Close(); err != nil && s.err == nil {
		s.err = fmt.Errorf("close %s: %w", s.path, err)
	}
	s.f = nil
	return s.path, s.err
}

// ReadArtifactLines returns lines [start, end) (counted from 0) of the text
// file at path, each cut to maxLineBytes (0: no cut), and the number of lines
// in the file. It is how a model pages through an output artifact whose
// head and tail it was shown; it reads the file as a stream, so a 64 MiB
// artifact costs no more memory than the page asked for.
func ReadArtifactLines(path string, start, end, maxLineBytes int) ([]string, int, error) {
	if start < 0 || end < start {
		return nil, 0, fmt.Errorf("read lines [%d,%d) of %s: want 0 <= start <= end", start, end, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("open output artifact: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var (
		lines []string
		cur   []byte
		total int
		open  bool
	)
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			open = true
		}
		want := total >= start && total < end
		body := chunk
		eol := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if eol {
			body = chunk[:len(chunk)-1]
		}
		if want {
			cur = appendCapped(cur, body, maxLineBytes)
		}
		if eol {
			if want {
				lines = append(lines, string(cur))
			}
			cur, open = cur[:0], false
			total++
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read output artifact %s: %w", path, err)
		}
	}
	if open {
		if total >= start && total < end {
			lines = append(lines, string(cur))
		}
		total++
	}
	return lines, total, nil
}

// appendCapped appends p to dst without letting dst grow past limit bytes
// (0: no limit), cutting on a rune boundary.
func appendCapped(dst, p []byte, limit int) []byte {
	if limit <= 0 {
		return append(dst, p...)
	}
	room := limit - len(dst)
	if room <= 0 {
		return dst
	}
	if len(p) <= room {
		return append(dst, p...)
	}
	for room > 0 && !utf8.RuneStart(p[room]) {
		room--
	}
	return append(dst, p[:room]...)
}
