package app

import (
	"sync"

	"github.com/olly-agent/olly/internal/trust"
)

// trustPath is the trust store's file (trust.Path of the state directory).
func (a *App) trustPath() string { return trust.Path(a.Config.Paths().StateDir) }

// trustState is what one olly process remembers about project programs
// nobody trusted yet: which were already reported (so a warning is given
// once per session and per version of the program, not at every turn).
type trustState struct {
	mu   sync.Mutex
	told map[string]bool
	// later are the requests a person put off ("not now") in a session.
	later map[string]bool
}

// firstTime reports whether the untrusted program (kind, name, with this
// fingerprint) in workspace is news for session, and remembers it.
func (s *trustState) firstTime(session, workspace, kind, name, fingerprint string) bool {
	key := trustKey(session, workspace, kind, name, fingerprint)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.told[key] {
		return false
	}
	if s.told == nil {
		s.told = map[string]bool{}
	}
	s.told[key] = true
	return true
}

// putOffNow remembers that a person answered "not now" for the program in
// session: it is not asked about again there.
func (s *trustState) putOffNow(session, workspace, kind, name, fingerprint string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.later == nil {
		s.later = map[string]bool{}
	}
	s.later[trustKey(session, workspace, kind, name, fingerprint)] = true
}

// putOff reports whether a person put the program off in session.
func (s *trustState) putOff(session, workspace, kind, name, fingerprint string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.later[trustKey(session, workspace, kind, name, fingerprint)]
}

func trustKey(session, workspace, kind, name, fingerprint string) string {
	return session + "\x00" + workspace + "\x00" + kind + "\x00" + name + "\x00" + fingerprint
}
