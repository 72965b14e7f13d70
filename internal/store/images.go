package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// PutImage stores an image's bytes under their SHA-256 (hex), which it
// returns; storing the same bytes again renews only its created_at (the
// grace a delete keeps it for, images_gc.go).
func (s *Store) PutImage(ctx context.Context, mimeType string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", errors.New("store image: no bytes")
	}
	sum := sha256.Sum256(data)
	key := hex.EncodeToString(sum[:])
	_, err := s.w.ExecContext(ctx, `INSERT INTO images (sha256, mime_type, size, data, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO UPDATE SET created_at = excluded.created_at`, key, mimeType, len(data), data, s.now())
	if err != nil {
		return "", classify(s.file, fmt.Errorf("store image %s: %w", key[:12], err))
	}
	s.walWrote(len(data)) // megabytes in the WAL count toward the next checkpoint
	return key, nil
}

// Image returns an image's type and bytes by SHA-256; ErrNotFound when
// none is stored under it.
func (s *Store) Image(ctx context.Context, sha string) (mimeType string, data []byte, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT mime_type, data FROM images WHERE sha256 = ?`, sha).Scan(&mimeType, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("image %s: %w", sha, ErrNotFound)
	}
	if err != nil {
		return "", nil, classify(s.file, fmt.Errorf("read image %s: %w", sha, err))
	}
	return mimeType, data, nil
}
