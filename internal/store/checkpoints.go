package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// CheckpointStatus is where a checkpoint's review stands.
type CheckpointStatus string

// Checkpoint statuses (seed 003).
const (
	CheckpointPending CheckpointStatus = "pending"
	CheckpointKept    CheckpointStatus = "kept"
	CheckpointUndone  CheckpointStatus = "undone"
	CheckpointPartial CheckpointStatus = "partial"
)

// FileStatus is where one file's review stands.
type FileStatus string

// File statuses.
const (
	FilePending FileStatus = "pending"
	FileKept    FileStatus = "kept"
	FileUndone  FileStatus = "undone"
	// FilePartial is a file whose hunks were resolved one by one, some
	// kept and some undone.
	FilePartial FileStatus = "partial"
)

// Checkpoint groups the file snapshots of one agent run.
type Checkpoint struct {
	ID             string           `json:"id"`
	SessionID      string           `json:"sessionId"`
	Turn           int              `json:"turn"`
	Status         CheckpointStatus `json:"status"`
	TotalAdditions int              `json:"totalAdditions"`
	TotalDeletions int              `json:"totalDeletions"`
	CreatedAt      time.Time        `json:"createdAt"`
}

// FileSnapshot is a file as it was before the run's first write to it.
type FileSnapshot struct {
	ID           int64  `json:"id"`
	CheckpointID string `json:"checkpointId"`
	FilePath     string `json:"filePath"` // workspace-relative
	// OriginalContent is nil once the file was kept and pruned.
	OriginalContent []byte      `json:"-"`
	OriginalMode    fs.FileMode `json:"originalMode"`
	// Existed is false when the run created the file; undo then removes
	// it, and the CreatedDirs olly made for it, deepest first.
	Existed     bool       `json:"existed"`
	CreatedDirs []string   `json:"createdDirs,omitempty"`
	Status      FileStatus `json:"status"`
	// Additions and Deletions are nil until computed.
	Additions *int `json:"additions,omitempty"`
	Deletions *int `json:"deletions,omitempty"`
	// WrittenContent is the file as olly last wrote it in the checkpoint
	// (nil: not recorded). The agent's hunks are original → written; what
	// differs between written and the file on disk is the person's.
	WrittenContent []byte `json:"-"`
	// HunksKept and HunksUndone count the hunks resolved one at a time.
	HunksKept   int       `json:"hunksKept,omitempty"`
	HunksUndone int       `json:"hunksUndone,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

// CreateCheckpoint stores a new checkpoint for an agent run. An empty ID
// gets a NewID and an empty Status is pending.
func (s *Store) CreateCheckpoint(ctx context.Context, c *Checkpoint) error {
	if c.ID == "" {
		c.ID = NewID(s.opts.Now())
	}
	if c.Status == "" {
		c.Status = CheckpointPending
	}
	c.CreatedAt = fromMillis(s.now())
	_, err := s.w.ExecContext(ctx, `INSERT INTO checkpoints
		(id, session_id, turn, status, total_additions, total_deletions, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, c.ID, c.SessionID, c.Turn, string(c.Status),
		c.TotalAdditions, c.TotalDeletions, c.CreatedAt.UnixMilli())
	if err != nil {
		return classify(s.file, fmt.Errorf("create checkpoint for session %s: %w", c.SessionID, err))
	}
	return nil
}

const checkpointCols = `id, session_id, turn, status, total_additions, total_deletions, created_at`

func scanCheckpoint(row scanner) (Checkpoint, error) {
	var c Checkpoint
	var at int64
	err := row.Scan(&c.ID, &c.SessionID, &c.Turn, &c.Status, &c.TotalAdditions, &c.TotalDeletions, &at)
	c.CreatedAt = fromMillis(at)
	return c, err
}

// Checkpoint returns one checkpoint, or an error wrapping ErrNotFound.
func (s *Store) Checkpoint(ctx context.Context, id string) (*Checkpoint, error) {
	c, err := scanCheckpoint(s.r.QueryRowContext(ctx, `SELECT `+checkpointCols+` FROM checkpoints WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("checkpoint %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("read checkpoint %s: %w", id, err))
	}
	return &c, nil
}

// Checkpoints returns a session's checkpoints, oldest first.
func (s *Store) Checkpoints(ctx context.Context, session string) ([]Checkpoint, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+checkpointCols+` FROM checkpoints
		WHERE session_id = ? ORDER BY created_at, id`, session)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("list checkpoints of session %s: %w", session, err))
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return nil, classify(s.file, fmt.Errorf("list checkpoints of session %s: %w", session, err))
		}
		out = append(out, c)
	}
	return out, classify(s.file, rows.Err())
}

// SetCheckpointStatus records the checkpoint's review state.
func (s *Store) SetCheckpointStatus(ctx context.Context, id string, st CheckpointStatus) error {
	return s.execOne(ctx, "set status of checkpoint "+id,
		`UPDATE checkpoints SET status = ? WHERE id = ?`, string(st), id)
}

// SetCheckpointTotals records the checkpoint's line counts over all its
// files (the fallback for files without their own counts).
func (s *Store) SetCheckpointTotals(ctx context.Context, id string, additions, deletions int) error {
	return s.execOne(ctx, "set totals of checkpoint "+id,
		`UPDATE checkpoints SET total_additions = ?, total_deletions = ? WHERE id = ?`, additions, deletions, id)
}

// execOne runs an update that must touch exactly one row.
func (s *Store) execOne(ctx context.Context, op, query string, args ...any) error {
	res, err := s.w.ExecContext(ctx, query, args...)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}

// AddSnapshot stores the snapshot of a file before the run's first write
// to it. Only the first snapshot of a path in a checkpoint is kept (it
// holds the true original): a later one is ignored and added is false.
func (s *Store) AddSnapshot(ctx context.Context, f *FileSnapshot) (added bool, err error) {
	if f.Status == "" {
		f.Status = FilePending
	}
	dirs, err := json.Marshal(nonNil(f.CreatedDirs))
	if err != nil {
		return false, fmt.Errorf("snapshot %s: %w", f.FilePath, err)
	}
	f.CreatedAt = fromMillis(s.now())
	res, err := s.w.ExecContext(ctx, `INSERT OR IGNORE INTO file_snapshots
		(checkpoint_id, file_path, original_content, original_mode, existed, created_dirs,
		 file_status, additions, deletions, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, f.CheckpointID, f.FilePath, f.OriginalContent,
		uint32(f.OriginalMode), f.Existed, string(dirs), string(f.Status), nullInt(f.Additions),
		nullInt(f.Deletions), f.CreatedAt.UnixMilli())
	if err != nil {
		return false, classify(s.file, fmt.Errorf("snapshot %s in checkpoint %s: %w", f.FilePath, f.CheckpointID, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	f.ID, _ = res.LastInsertId()
	return true, nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func nullInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

const snapshotCols = `id, checkpoint_id, file_path, original_content, original_mode, existed,
	created_dirs, file_status, additions, deletions, created_at, written_content, hunks_kept, hunks_undone,
	original_content IS NULL, written_content IS NULL`

func scanSnapshot(row scanner) (FileSnapshot, error) {
	var (
		f        FileSnapshot
		mode     uint32
		dirs     string
		add, del sql.NullInt64
		at       int64
		noOrig   bool
		noWrit   bool
	)
	if err := row.Scan(&f.ID, &f.CheckpointID, &f.FilePath, &f.OriginalContent, &mode, &f.Existed,
		&dirs, &f.Status, &add, &del, &at, &f.WrittenContent, &f.HunksKept, &f.HunksUndone,
		&noOrig, &noWrit); err != nil {
		return f, err
	}
	// The driver reads a zero-length BLOB as nil; only NULL means no
	// content (pruned, or not recorded), so an empty file stays empty.
	if !noOrig && f.OriginalContent == nil {
		f.OriginalContent = []byte{}
	}
	if !noWrit && f.WrittenContent == nil {
		f.WrittenContent = []byte{}
	}
	f.OriginalMode, f.CreatedAt = fs.FileMode(mode), fromMillis(at)
	if err := json.Unmarshal([]byte(dirs), &f.CreatedDirs); err != nil {
		return f, fmt.Errorf("snapshot %s: created_dirs: %w", f.FilePath, err)
	}
	if add.Valid {
		n := int(add.Int64)
		f.Additions = &n
	}
	if del.Valid {
		n := int(del.Int64)
		f.Deletions = &n
	}
	return f, nil
}

// Snapshot returns the snapshot of path in a checkpoint, or an error
// wrapping ErrNotFound.
func (s *Store) Snapshot(ctx context.Context, checkpoint, path string) (*FileSnapshot, error) {
	f, err := scanSnapshot(s.r.QueryRowContext(ctx, `SELECT `+snapshotCols+` FROM file_snapshots
		WHERE checkpoint_id = ? AND file_path = ?`, checkpoint, path))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("snapshot %s in checkpoint %s: %w", path, checkpoint, ErrNotFound)
	}
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("read snapshot %s in checkpoint %s: %w", path, checkpoint, err))
	}
	return &f, nil
}

// Snapshots returns a checkpoint's snapshots in the order they were taken.
func (s *Store) Snapshots(ctx context.Context, checkpoint string) ([]FileSnapshot, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+snapshotCols+` FROM file_snapshots
		WHERE checkpoint_id = ? ORDER BY id`, checkpoint)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("list snapshots of checkpoint %s: %w", checkpoint, err))
	}
	defer rows.Close()
	var out []FileSnapshot
	for rows.Next() {
		f, err := scanSnapshot(rows)
		if err != nil {
			return nil, classify(s.file, fmt.Errorf("list snapshots of checkpoint %s: %w", checkpoint, err))
		}
		out = append(out, f)
	}
	return out, classify(s.file, rows.Err())
}

// SetSnapshotStatus records whether a file was kept or undone.
func (s *Store) SetSnapshotStatus(ctx context.Context, checkpoint, path string, st FileStatus) error {
	return s.execOne(ctx, fmt.Sprintf("set status of %s in checkpoint %s", path, checkpoint),
		`UPDATE file_snapshots SET file_status = ? WHERE checkpoint_id = ? AND file_path = ?`,
		string(st), checkpoint, path)
}

// SetSnapshotStats records a file's added and deleted line counts.
func (s *Store) SetSnapshotStats(ctx context.Context, checkpoint, path string, additions, deletions int) error {
	return s.execOne(ctx, fmt.Sprintf("set line counts of %s in checkpoint %s", path, checkpoint),
		`UPDATE file_snapshots SET additions = ?, deletions = ? WHERE checkpoint_id = ? AND file_path = ?`,
		additions, deletions, checkpoint, path)
}

// SnapshotStats are one file's line counts, for SetSnapshotsStats.
type SnapshotStats struct {
	FilePath  string
	Additions int
	Deletions int
}

// SetSnapshotsStats records the line counts of many files of a checkpoint
// in one transaction (a checkpoint of hundreds of files would otherwise
// pay one commit per file).
func (s *Store) SetSnapshotsStats(ctx context.Context, checkpoint string, stats []SnapshotStats) error {
	if len(stats) == 0 {
		return nil
	}
	op := "set line counts in checkpoint " + checkpoint
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer rollback(tx)
	stmt, err := tx.PrepareContext(ctx, `UPDATE file_snapshots SET additions = ?, deletions = ?
		WHERE checkpoint_id = ? AND file_path = ?`)
	if err != nil {
		return classify(s.file, fmt.Errorf("%s: %w", op, err))
	}
	defer stmt.Close()
	for _, st := range stats {
		res, err := stmt.ExecContext(ctx, st.Additions, st.Deletions, checkpoint, st.FilePath)
		if err != nil {
			return classify(s.file, fmt.Errorf("%s: %s: %w", op, st.FilePath, err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%s: %s: %w", op, st.FilePath, ErrNotFound)
		}
	}
	return classify(s.file, tx.Commit())
}

// SetSnapshotOriginal replaces a file's original content: keeping one hunk
// folds it into the original, so the remaining diff stays original →
// current.
func (s *Store) SetSnapshotOriginal(ctx context.Context, checkpoint, path string, content []byte) error {
	if content == nil {
		content = []byte{} // nil would read as pruned
	}
	return s.execOne(ctx, fmt.Sprintf("set original of %s in checkpoint %s", path, checkpoint),
		`UPDATE file_snapshots SET original_content = ? WHERE checkpoint_id = ? AND file_path = ?`,
		content, checkpoint, path)
}

// SaveSnapshotReview stores the review state of f, the snapshot of
// f.FilePath in f.CheckpointID, in one statement: original and written
// content, mode, existed, created directories, status, line counts and
// hunk counts. Keeping or undoing one hunk changes several of them at
// once, and a crash must not store half of that. A nil OriginalContent
// stores NULL (pruned, or a created file's empty original).
func (s *Store) SaveSnapshotReview(ctx context.Context, f *FileSnapshot) error {
	dirs, err := json.Marshal(nonNil(f.CreatedDirs))
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", f.FilePath, err)
	}
	return s.execOne(ctx, fmt.Sprintf("save review of %s in checkpoint %s", f.FilePath, f.CheckpointID),
		`UPDATE file_snapshots SET original_content = ?, original_mode = ?, existed = ?, created_dirs = ?,
			file_status = ?, additions = ?, deletions = ?, written_content = ?, hunks_kept = ?, hunks_undone = ?
		WHERE checkpoint_id = ? AND file_path = ?`,
		f.OriginalContent, uint32(f.OriginalMode), f.Existed, string(dirs), string(f.Status),
		nullInt(f.Additions), nullInt(f.Deletions), f.WrittenContent, f.HunksKept, f.HunksUndone,
		f.CheckpointID, f.FilePath)
}

// PruneKept drops the original (and written) content of the checkpoint's
// kept files: it is no longer needed for undo. Undone files keep theirs. It returns how
// many snapshots were pruned.
func (s *Store) PruneKept(ctx context.Context, checkpoint string) (int, error) {
	res, err := s.w.ExecContext(ctx, `UPDATE file_snapshots SET original_content = NULL, written_content = NULL
		WHERE checkpoint_id = ? AND file_status = 'kept'
			AND (original_content IS NOT NULL OR written_content IS NOT NULL)`, checkpoint)
	if err != nil {
		return 0, classify(s.file, fmt.Errorf("prune checkpoint %s: %w", checkpoint, err))
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// DiffStats are pending line counts.
type DiffStats struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Files     int `json:"files"` // pending files
}

// PendingStats returns, per session with pending files, the lines added
// and deleted by changes not yet kept or undone: the sessions list's
// +N −N badges. Sessions with nothing pending are absent from the map.
//
// Two levels (seed 003, getSessionsPendingStats): per checkpoint, the sum
// of its pending files' counts when any of them has counts, else the
// checkpoint's own totals; then per session, the sum over checkpoints.
func (s *Store) PendingStats(ctx context.Context) (map[string]DiffStats, error) {
	return s.pendingStats(ctx, "", nil)
}

// SessionPendingStats is PendingStats for one session (zero when nothing
// is pending).
func (s *Store) SessionPendingStats(ctx context.Context, session string) (DiffStats, error) {
	m, err := s.pendingStats(ctx, "WHERE c.session_id = ?", []any{session})
	return m[session], err
}

func (s *Store) pendingStats(ctx context.Context, where string, args []any) (map[string]DiffStats, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT session_id, sum(adds), sum(dels), sum(files) FROM (
			SELECT c.session_id AS session_id,
				CASE WHEN count(f.additions) > 0 OR count(f.deletions) > 0
					THEN coalesce(sum(f.additions), 0) ELSE c.total_additions END AS adds,
				CASE WHEN count(f.additions) > 0 OR count(f.deletions) > 0
					THEN coalesce(sum(f.deletions), 0) ELSE c.total_deletions END AS dels,
				count(*) AS files
			FROM checkpoints c
			JOIN file_snapshots f ON f.checkpoint_id = c.id AND f.file_status = 'pending'
			`+where+`
			GROUP BY c.id
		) GROUP BY session_id`, args...)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("pending stats: %w", err))
	}
	defer rows.Close()
	out := map[string]DiffStats{}
	for rows.Next() {
		var id string
		var d DiffStats
		if err := rows.Scan(&id, &d.Additions, &d.Deletions, &d.Files); err != nil {
			return nil, classify(s.file, fmt.Errorf("pending stats: %w", err))
		}
		out[id] = d
	}
	return out, classify(s.file, rows.Err())
}
