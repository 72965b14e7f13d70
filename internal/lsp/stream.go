package lsp

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// pipeStream joins the server's stdout (read) and stdin (write) into the
// io.ReadWriteCloser jsonrpc2 reads and writes.
type pipeStream struct {
	r, w *os.File
	// onWriteError kills the server: after a failed write the framing is
	// broken and nothing more can be said to it.
	onWriteError func()
	once         sync.Once
}

func (s *pipeStream) Read(p []byte) (int, error) { return s.r.Read(p) }

func (s *pipeStream) Write(p []byte) (int, error) {
	// Pipes from os.Pipe support deadlines; where they do not, the error
	// is ignored and the write simply has no bound.
	_ = s.w.SetWriteDeadline(time.Now().Add(writeTimeout))
	n, err := s.w.Write(p)
	if err != nil && s.onWriteError != nil {
		s.onWriteError()
	}
	return n, err
}

// Close closes both pipes; the reader then ends at once even if a child of
// the server still holds the other end.
func (s *pipeStream) Close() error {
	var err error
	s.once.Do(func() {
		err = errors.Join(s.w.Close(), s.r.Close())
	})
	return err
}

// logWriter logs a server's stderr line by line at debug level. Lines are
// cut at maxLogLine bytes, so a server printing a huge line cannot grow
// memory without bound.
type logWriter struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
	// first is the first line written, and alarm the last one that
	// mentions an error, panic or fatal condition: together they say why
	// a server died ("error: Unknown binary 'rust-analyzer'…").
	first, alarm string
}

// why returns the stderr line that best explains an exit.
func (w *logWriter) why() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.alarm != "" {
		return w.alarm
	}
	if w.first == "" && len(w.buf) > 0 {
		return string(w.buf)
	}
	return w.first
}

func alarming(line string) bool {
	l := strings.ToLower(line)
	return strings.Contains(l, "error") || strings.Contains(l, "panic") || strings.Contains(l, "fatal") || strings.Contains(l, "exception")
}

const maxLogLine = 2000

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p[:min(len(p), max(0, maxLogLine-len(w.buf)))]...)
			break
		}
		w.buf = append(w.buf, p[:min(i, max(0, maxLogLine-len(w.buf)))]...)
		if line := strings.TrimSpace(string(w.buf)); line != "" {
			if w.first == "" {
				w.first = line
			}
			if alarming(line) {
				w.alarm = line
			}
			w.log.Debug("stderr", "line", line)
		}
		w.buf = w.buf[:0]
		p = p[i+1:]
	}
	return n, nil
}
