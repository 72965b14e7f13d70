package store

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strconv"
	"time"
)

// The WAL is checkpointed (its pages copied back into the database file)
// in the background, never inside an append. SQLite's own automatic
// checkpoint runs in whichever commit pushes the WAL past 1,000 pages: that
// commit then pays two fsyncs and the copying, 15–20 ms, and the agent
// iteration waiting for it takes three times its usual time. The writer
// connection therefore has automatic checkpoints off, and a goroutine with
// a connection of its own runs a PASSIVE checkpoint (it takes no lock that
// appends wait for) once appends have written about as much as SQLite's
// threshold, and at most every checkpointEvery. Once a checkpoint has
// copied everything, the next commit starts the WAL over from its
// beginning, so the file stays small. Writes other than appends
// (checkpoint snapshots, settings, vectors, other processes) are caught by
// a slow look at the WAL file's modification time.
const (
	checkpointEvery = 250 * time.Millisecond
	walLookEvery    = 10 * time.Second
	// defaultCheckpointBytes is the estimated WAL growth (walWrote) that
	// calls for a checkpoint: SQLite's 1,000 pages.
	defaultCheckpointBytes = 1000 * 4096
)

// walWrote adds an estimate of what a commit of events with these many
// bytes wrote to the WAL (the pages of the table, its indexes and the
// session row: at least two pages a commit) and wakes the checkpointer
// when that reaches the threshold.
func (s *Store) walWrote(bytes int) {
	if s.walBytes.Add(int64(bytes)+2*4096) >= s.cpBytes {
		s.walBytes.Store(0)
		s.walCommitted()
	}
}

// openCheckpointer opens the checkpoint connection.
func (s *Store) openCheckpointer() error {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(s.opts.BusyTimeout.Milliseconds(), 10)+")")
	q.Add("_pragma", "cache_size(64)") // it reads and writes pages through the files, not its cache
	db, err := sql.Open("sqlite", fileURI(s.file, q))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	s.cp = db
	return nil
}

// walCommitted tells the checkpointer that a commit added to the WAL.
func (s *Store) walCommitted() {
	select {
	case s.cpWake <- struct{}{}:
	default:
	}
}

// checkpointLoop runs passive checkpoints after commits, at most one per
// checkpointEvery, until the store closes (closing the last connection
// checkpoints what is left).
func (s *Store) checkpointLoop() {
	defer s.wg.Done()
	var (
		last    time.Time
		walMod  time.Time // the WAL's modification time at the last checkpoint
		look    = time.NewTicker(walLookEvery)
		walFile = s.file + "-wal"
	)
	defer look.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-s.cpWake:
		case <-look.C:
			fi, err := os.Stat(walFile)
			if err != nil || fi.ModTime().Equal(walMod) {
				continue
			}
		}
		if wait := checkpointEvery - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-s.quit:
				t.Stop()
				return
			case <-t.C:
			}
		}
		last = time.Now()
		if fi, err := os.Stat(walFile); err == nil {
			walMod = fi.ModTime()
		}
		// An error (a damaged file, a full disk) is left to the appends
		// and reads that meet it; the next commit tries again.
		_, _ = s.cp.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		s.checkpoints.Add(1)
	}
}
