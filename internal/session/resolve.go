package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/store"
)

// ErrAmbiguous is returned when a session id prefix matches several
// sessions.
var ErrAmbiguous = errors.New("ambiguous session id")

// minPrefix is the shortest id prefix Find accepts: shorter ones match
// every session created in the same period of time (ULIDs start with the
// time), so they only ever surprise.
const minPrefix = 4

// ResumeTarget names the session a frontend continues: olly -p --continue
// (Latest), olly -p --resume ID, and the RPC mode's equivalents.
type ResumeTarget struct {
	// Workspace is the directory the person is in; Latest picks its most
	// recently updated session.
	Workspace string
	// ID is a session id, or a prefix of exactly one session's id.
	ID string
	// Latest continues the workspace's most recent session (ID empty).
	Latest bool
}

// Resume finds the session t names. It does not check that the session
// belongs to t.Workspace when an ID is given: a session carries its own
// workspace, and its turns run there.
func (s *Service) Resume(ctx context.Context, t ResumeTarget) (*store.Session, error) {
	switch {
	case t.ID != "":
		return s.Find(ctx, t.ID)
	case t.Latest:
		return s.Latest(ctx, t.Workspace)
	}
	return nil, errors.New("resume: name a session id or ask for the latest session")
}

// Find returns the session with id ref, or the one session whose id starts
// with ref (ignoring case: ids are upper case, people type lower case).
func (s *Service) Find(ctx context.Context, ref string) (*store.Session, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, errors.New("no session id given: `olly sessions list` shows them")
	}
	sess, err := s.store.Session(ctx, ref)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return sess, err
	}
	prefix := strings.ToUpper(ref)
	if len(prefix) < minPrefix {
		return nil, fmt.Errorf("session id %q is too short: give at least %d characters (`olly sessions list` shows the ids)", ref, minPrefix)
	}
	all, err := s.store.ListSessions(ctx, store.ListFilter{})
	if err != nil {
		return nil, err
	}
	var found []store.Session
	for _, x := range all {
		if strings.HasPrefix(strings.ToUpper(x.ID), prefix) {
			found = append(found, x)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no session %q — `olly sessions list --all` shows the sessions: %w", ref, store.ErrNotFound)
	case 1:
		return &found[0], nil
	}
	ids := make([]string, 0, 3)
	for _, x := range found[:min(3, len(found))] {
		ids = append(ids, x.ID)
	}
	more := ""
	if len(found) > 3 {
		more = fmt.Sprintf(" and %d more", len(found)-3)
	}
	return nil, fmt.Errorf("session id %q matches %s%s: give more of the id: %w", ref, strings.Join(ids, ", "), more, ErrAmbiguous)
}

// Latest returns the most recently updated session of the workspace
// directory dir.
func (s *Service) Latest(ctx context.Context, dir string) (*store.Session, error) {
	key, err := WorkspaceKey(dir)
	if err != nil {
		return nil, err
	}
	sess, err := s.store.LatestSession(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("no session in %s yet: start one with olly -p \"…\" (or list every workspace's with olly sessions list --all): %w", key, err)
	}
	return sess, err
}

// Recent returns up to limit sessions of the workspace directory dir (""
// : every workspace), most recently updated first; limit 0 means all.
func (s *Service) Recent(ctx context.Context, dir string, limit int) ([]store.Session, error) {
	f := store.ListFilter{Limit: limit}
	if dir != "" {
		key, err := WorkspaceKey(dir)
		if err != nil {
			return nil, err
		}
		f.Workspace = key
	}
	return s.store.ListSessions(ctx, f)
}

// WorkspaceKey returns dir the way sessions record their workspace:
// absolute, with symbolic links resolved (as workspace.New does), so a
// session started through a link is found from the real directory and the
// other way round. A directory that does not exist keeps its absolute form.
func WorkspaceKey(dir string) (string, error) {
	abs, err := filepath.Abs(strings.TrimSpace(dir))
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}
