package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite"     // the database/sql driver "sqlite"
	_ "modernc.org/sqlite/vec" // loads sqlite-vec (vec0) into every connection
)

// FileName is the database's name inside olly's data directory.
const FileName = "olly.db"

// DefaultPath returns the database path inside dataDir.
func DefaultPath(dataDir string) string {
	return filepath.Join(dataDir, FileName)
}

// Options tune a Store. The zero value is the normal setting.
type Options struct {
	// BusyTimeout is how long a statement waits for another connection or
	// process holding the write lock; default 5 s.
	BusyTimeout time.Duration
	// FullSync makes every commit fsync the WAL (synchronous=FULL), so that
	// committed events also survive power loss and OS crashes, at a large
	// cost in append throughput. The default (synchronous=NORMAL) already
	// keeps every committed event across process crashes.
	FullSync bool
	// ReadConns bounds the connections used for reads; default 4.
	ReadConns int
	// Now returns the current time; default time.Now. Tests pin it.
	Now func() time.Time
	// CommitDelay is how long events queued with AppendAsync may wait for
	// more to join their transaction (write-behind): default
	// DefaultCommitDelay; negative commits at once. Append, Flush and a
	// full batch never wait.
	CommitDelay time.Duration
}

// DefaultCommitDelay is how long an AppendAsync event waits at most for
// others to share its commit. An agent step's dozen events then take one
// or two commits instead of three or four (each commit writes the same
// table, index and session pages again), and frontends see a durable event
// at most this much later, less than a frame. Nobody waits for it: whoever
// needs the events durable now calls Flush (commit.go).
const DefaultCommitDelay = 10 * time.Millisecond

func (o Options) withDefaults() Options {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.ReadConns <= 0 {
		o.ReadConns = 4
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CommitDelay == 0 {
		o.CommitDelay = DefaultCommitDelay
	}
	return o
}

// Store is olly's database. It is safe for concurrent use by many
// goroutines, and several processes may open the same file.
type Store struct {
	file string // absolute path of the database
	opts Options
	w    *sql.DB // the one writer connection: writes serialize in-process
	r    *sql.DB // readers; WAL lets them run beside the writer
	hr   *sql.DB // one reader for where queued appends go (append.go)
	cp   *sql.DB // the background checkpoint's connection (walcheckpoint.go)
	me   Owner   // this process, recorded on sessions it generates in
	// maxGenerating bounds the sessions generating at once, across
	// processes (active.go); 0: no bound.
	maxGenerating atomic.Int32

	wordWindow int // see defaultWordWindow

	// readHeadR is readHeadSQL on hr: where a session's next queued event
	// goes, read without waiting for the writer (append.go).
	readHeadR *sql.Stmt
	ins       rowInserter   // the committer's inserts
	idr       idRange       // the committer's reserved event ids (ids.go)
	commits   atomic.Int64  // append transactions committed (for benchmarks)
	appended  atomic.Int64  // events they stored
	wake      chan struct{} // appends queued (buffered 1, coalesced)
	cpWake    chan struct{} // commits to checkpoint (buffered 1, coalesced)
	// checkpoints counts background checkpoints run (for tests).
	checkpoints atomic.Int64
	walBytes    atomic.Int64  // estimated WAL growth since the last wake of the checkpointer
	cpBytes     int64         // the growth that wakes it (defaultCheckpointBytes; tests lower it)
	ftsCh       chan *ftsReq  // search asks the committer to index pending text
	warmCh      chan struct{} // Warm asks the committer to prepare its statements (warm.go; buffered 1)
	warmed      atomic.Bool   // warmStatements found every statement prepared: Warm returns at once
	quit        chan struct{}
	wg          sync.WaitGroup
	once        sync.Once

	// The append queue (append.go): what the committer commits next, and
	// each session's position after its queued events.
	qmu    sync.Mutex
	queue  []*appendReq
	qheads map[string]*queuedHead
	// known: where each session's log ended after this process's last
	// commit to it, and when (append.go: knownHead).
	known     map[string]knownHead
	headTrust time.Duration // headTrust; tests change it
	headReads atomic.Int64  // storedHead queries (for tests)
	wakes     atomic.Int64  // wakeCommitter calls (for tests)
	qclosed   bool
	// qurgent: something queued must not wait (Append, Flush).
	qurgent bool

	mu       sync.Mutex
	watchers map[chan struct{}]struct{} // woken after appends (the indexer)
}

// Open opens the database at path, creating it (and its directory) if
// needed, and brings its schema up to date. A file from a newer olly, a
// file that is not an olly database, and a damaged file are errors
// (*VersionError, *ForeignError, *DamagedError) and are left untouched.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open database %s: create its directory: %w", abs, err)
	}
	s := &Store{
		file:       abs,
		opts:       opts,
		me:         currentOwner(),
		wordWindow: defaultWordWindow,
		wake:       make(chan struct{}, 1),
		cpWake:     make(chan struct{}, 1),
		cpBytes:    defaultCheckpointBytes,
		qheads:     map[string]*queuedHead{},
		known:      map[string]knownHead{},
		headTrust:  headTrust,
		ftsCh:      make(chan *ftsReq),
		warmCh:     make(chan struct{}, 1),
		quit:       make(chan struct{}),
		watchers:   map[chan struct{}]struct{}{},
	}
	if err := s.openConns(ctx); err != nil {
		s.closeConns()
		return nil, err
	}
	// Text a crashed process appended but never indexed is indexed now,
	// before anyone can search.
	if err := s.indexPending(ctx); err != nil {
		s.closeConns()
		return nil, s.openErr(classify(s.file, err))
	}
	s.wg.Add(2)
	go s.commitLoop()
	go s.checkpointLoop()
	return s, nil
}

func (s *Store) openConns(ctx context.Context) error {
	syncMode := "NORMAL"
	if s.opts.FullSync {
		syncMode = "FULL"
	}
	common := url.Values{}
	common.Add("_pragma", "busy_timeout("+strconv.FormatInt(s.opts.BusyTimeout.Milliseconds(), 10)+")")
	common.Add("_pragma", "foreign_keys(1)")
	common.Add("_pragma", "synchronous("+syncMode+")")
	common.Add("_pragma", "temp_store(MEMORY)")
	common.Add("_pragma", "cache_size(-16384)") // 16 MiB per connection

	wq := cloneValues(common)
	wq.Set("_txlock", "immediate")             // writers take the lock up front: no deadlocking upgrades
	wq.Add("_pragma", "wal_autocheckpoint(0)") // checkpoints run in the background (walcheckpoint.go)
	// The writer's cache is small (reads go through the readers' caches):
	// at 64 pages it holds a commit's pages (the B-trees' right edges, the
	// session row, the counters, the full-text index's) and then reuses the
	// buffers of pages no longer needed, where a 16 MiB cache took a fresh
	// buffer — and a page fault — for every page the log grew by (about one
	// a step), and kept them all. Spilling to the WAL mid-transaction still
	// waits for 4,096 dirty pages (16 MiB), as before.
	wq.Add("_pragma", "cache_size(64)")
	wq.Add("_pragma", "cache_spill(4096)")
	w, err := openWriter(fileURI(s.file, wq)) // its connections own the committer's statements (writerconn.go)
	if err != nil {
		return fmt.Errorf("open database %s: %w", s.file, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	s.w = w
	// Inspect before anything writes: a newer or damaged file must stay
	// byte-identical.
	if err := s.prepare(ctx); err != nil {
		return err
	}

	rq := cloneValues(common)
	rq.Add("_pragma", "query_only(1)")
	// Reads map the file instead of copying each page through read(2):
	// replaying a long session is a third cheaper. (SQLite never shrinks
	// the file under a mapping here: olly does not VACUUM in place.)
	rq.Add("_pragma", "mmap_size(268435456)")
	r, err := sql.Open("sqlite", fileURI(s.file, rq))
	if err != nil {
		return fmt.Errorf("open database %s: %w", s.file, err)
	}
	r.SetMaxOpenConns(s.opts.ReadConns)
	r.SetMaxIdleConns(s.opts.ReadConns)
	s.r = r

	// Queued appends read where a session's log ends on a connection of
	// their own: after every commit SQLite drops a reader's page cache, and
	// dropping the readers' large caches and file mappings cost more than
	// the append. This one keeps a few pages and maps nothing.
	hq := url.Values{}
	hq.Add("_pragma", "busy_timeout("+strconv.FormatInt(s.opts.BusyTimeout.Milliseconds(), 10)+")")
	hq.Add("_pragma", "query_only(1)")
	hq.Add("_pragma", "cache_size(64)")
	hr, err := sql.Open("sqlite", fileURI(s.file, hq))
	if err != nil {
		return fmt.Errorf("open database %s: %w", s.file, err)
	}
	hr.SetMaxOpenConns(1)
	hr.SetMaxIdleConns(1)
	hr.SetConnMaxIdleTime(0)
	s.hr = hr
	if s.readHeadR, err = hr.PrepareContext(ctx, readHeadSQL); err != nil {
		return s.openErr(fmt.Errorf("prepare statements: %w", err))
	}
	if err := s.openCheckpointer(); err != nil {
		return fmt.Errorf("open database %s: %w", s.file, err)
	}
	return nil
}

// File returns the database file's absolute path.
func (s *Store) File() string { return s.file }

// Close stops the committer and closes the database. Appends after Close
// return ErrClosed. It is safe to call more than once.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		s.qmu.Lock()
		s.qclosed = true // appends queued before this are still committed
		s.qmu.Unlock()
		close(s.quit)
		s.wg.Wait()
		err = s.closeConns()
	})
	return err
}

// closed reports whether Close was called.
func (s *Store) closed() bool {
	select {
	case <-s.quit:
		return true
	default:
		return false
	}
}

func (s *Store) closeConns() error {
	if s.readHeadR != nil {
		s.readHeadR.Close()
	}
	var first error
	// Readers first: the writer, closing last, checkpoints the WAL into the
	// main file when no other process has the database open.
	for _, db := range []*sql.DB{s.cp, s.hr, s.r, s.w} {
		if db == nil {
			continue
		}
		if err := db.Close(); err != nil && first == nil {
			first = fmt.Errorf("close database %s: %w", s.file, err)
		}
	}
	return first
}

// now returns the current time in unix milliseconds.
func (s *Store) now() int64 { return s.opts.Now().UnixMilli() }

// fileURI builds a SQLite URI for path with the query q, escaping whatever
// in the path would otherwise read as URI syntax ('?', '#', '%', spaces).
func fileURI(path string, q url.Values) string {
	p := filepath.ToSlash(path)
	if len(p) > 0 && p[0] != '/' {
		p = "/" + p // a Windows volume: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// fromMillis converts unix milliseconds to a time.Time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms) }
