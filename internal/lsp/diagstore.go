package lsp

import (
	"context"
	"sync"
	"time"
)

// published is the latest diagnostics a server reported for one file.
type published struct {
	// version is the document version they are for; nil when the server
	// did not say (a file not open, or a server without version support).
	version *int32
	diags   []Diagnostic
	// seq orders publications across all files of one server.
	seq uint64
	at  time.Time
}

// diagStore keeps one server's latest diagnostics per file and wakes the
// waiters on every publication. Files are keyed by cleaned path, never by
// URI string (servers encode URIs differently).
type diagStore struct {
	mu     sync.Mutex
	files  map[string]published
	seq    uint64
	lastAt time.Time
	// wake is closed and replaced on every publication: a broadcast.
	wake chan struct{}
}

func newDiagStore() *diagStore {
	return &diagStore{files: map[string]published{}, wake: make(chan struct{})}
}

// put records a publication.
func (s *diagStore) put(path string, version *int32, diags []Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.lastAt = time.Now()
	s.files[path] = published{version: version, diags: diags, seq: s.seq, at: s.lastAt}
	close(s.wake)
	s.wake = make(chan struct{})
}

// get returns the latest publication for path.
func (s *diagStore) get(path string) (published, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.files[path]
	return p, ok
}

// mark returns the current sequence number: publications after it are
// newer than a change sent now.
func (s *diagStore) mark() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// forget drops a closed file's diagnostics: a server stops tracking it.
func (s *diagStore) forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, path)
}

// storeView is what a wait condition sees.
type storeView struct {
	files  map[string]published
	lastAt time.Time
}

// waitFor waits until cond holds, ctx ends or deadline passes; it reports
// whether cond held. cond runs under the store's lock and returns when to
// look again even without a publication (zero: only on a publication), for
// conditions about quiet periods.
func (s *diagStore) waitFor(ctx context.Context, deadline time.Time, cond func(v storeView, now time.Time) (bool, time.Time)) bool {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		s.mu.Lock()
		ok, again := cond(storeView{files: s.files, lastAt: s.lastAt}, time.Now())
		wake := s.wake
		s.mu.Unlock()
		if ok {
			return true
		}
		var (
			recheck <-chan time.Time
			t       *time.Timer
		)
		if !again.IsZero() {
			t = time.NewTimer(time.Until(again))
			recheck = t.C
		}
		expired := false
		select {
		case <-wake:
		case <-recheck:
		case <-timer.C:
			expired = true
		case <-ctx.Done():
			expired = true
		}
		if t != nil {
			t.Stop()
		}
		if expired {
			return false
		}
	}
}
