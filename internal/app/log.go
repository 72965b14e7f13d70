package app

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// OpenLog opens olly's log file in stateDir (olly.log, appended) and returns
// a logger writing to it. In every interface mode stdout carries only the
// interface's own output, so diagnostics go here. If the file cannot be
// opened the logger discards, and the error says why.
func OpenLog(stateDir string, level slog.Level) (*slog.Logger, io.Closer, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return discard(), nopCloser{}, fmt.Errorf("create state directory %s: %w", stateDir, err)
	}
	path := filepath.Join(stateDir, "olly.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return discard(), nopCloser{}, fmt.Errorf("open log %s: %w", path, err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})), f, nil
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
