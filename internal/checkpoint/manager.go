package checkpoint

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// Emitter publishes an event of a session and turn: the session service's
// Emit, which stores durable events before anyone sees them.
type Emitter interface {
	Emit(ctx context.Context, sessionID string, turn int, p event.Payload) error
}

// Manager records snapshots and keeps or undoes changes in one workspace.
// It is safe for concurrent use: snapshots, keeps and undos are serialized,
// so an undo never interleaves with an agent's write of the same file.
type Manager struct {
	st   *store.Store
	root string
	emit Emitter
	now  func() time.Time

	sem chan struct{} // one operation at a time; waiting honours ctx

	idMu   sync.Mutex
	lastID string
}

// New returns a Manager for the workspace whose primary root is root (an
// absolute path with symbolic links resolved: workspace.Root.Path, or a
// session's Workspace). Snapshot paths are stored relative to it, or
// absolute for files outside it. emit may be nil: then nothing is
// published.
func New(st *store.Store, root string, emit Emitter) *Manager {
	return &Manager{st: st, root: filepath.Clean(root), emit: emit, now: time.Now, sem: make(chan struct{}, 1)}
}

// Root returns the workspace root the manager resolves paths against.
func (m *Manager) Root() string { return m.root }

// lock waits for the manager's turn, or for ctx to end.
func (m *Manager) lock(ctx context.Context) (func(), error) {
	select {
	case m.sem <- struct{}{}:
		return func() { <-m.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// RelPath turns an absolute path into the form snapshots store: slash
// separated and relative to the root, or absolute when outside it.
func (m *Manager) RelPath(abs string) string {
	rel, err := filepath.Rel(m.root, filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return filepath.ToSlash(filepath.Clean(abs))
	}
	return filepath.ToSlash(rel)
}

// AbsPath is the inverse of RelPath.
func (m *Manager) AbsPath(rel string) string {
	p := filepath.FromSlash(rel)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(m.root, p)
}

// newID returns a checkpoint id (a ULID, like the store's) that sorts after
// every id this manager handed out before, even within one millisecond:
// review orders checkpoints by creation time and then id.
func (m *Manager) newID() string {
	m.idMu.Lock()
	defer m.idMu.Unlock()
	id := store.NewID(m.now())
	if id <= m.lastID {
		id = nextID(m.lastID)
	}
	m.lastID = id
	return id
}

// crockford is the alphabet of store.NewID.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// nextID returns the id one above id in Crockford base 32.
func nextID(id string) string {
	b := []byte(id)
	for i := len(b) - 1; i >= 0; i-- {
		d := strings.IndexByte(crockford, b[i])
		if d < len(crockford)-1 {
			b[i] = crockford[d+1]
			return string(b)
		}
		b[i] = crockford[0]
	}
	return id + "0" // unreachable for ids from NewID (the top digit has spare room)
}

// checkpoint reads a checkpoint, with an error a person can act on.
func (m *Manager) checkpoint(ctx context.Context, id string) (*store.Checkpoint, error) {
	c, err := m.st.Checkpoint(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("%w (list checkpoints with olly changes)", err)
	}
	return c, nil
}

// publish emits p for the checkpoint's session and turn; a failure to emit
// is returned so the caller can report it, but the change it describes
// already happened on disk and in the store.
func (m *Manager) publish(ctx context.Context, c *store.Checkpoint, p event.Payload) error {
	if m.emit == nil {
		return nil
	}
	if err := m.emit.Emit(ctx, c.SessionID, c.Turn, p); err != nil {
		return fmt.Errorf("emit %s for checkpoint %s: %w", p.EventType(), c.ID, err)
	}
	return nil
}
