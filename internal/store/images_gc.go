package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Images are shared: the same bytes attached in two sessions (or copied
// by a fork) are one row. So an image goes only when no user message of
// any session refers to it any more, which DeleteSession checks after
// deleting the session's events, in the same transaction. The check
// sweeps every unreferenced image, so one left by an earlier delete goes
// then too.
//
// An image is stored just before the user message that refers to it is
// appended (the session service stores the bytes first): one stored in
// the last imageGrace by this process is kept, or a delete running
// between the two would take the image from under the new message.

// imageGrace is how long an image this process stored is kept without a
// reference.
const imageGrace = time.Minute

// notePut records that key was just stored.
func (s *Store) notePut(key string) {
	now := s.opts.Now()
	s.imgMu.Lock()
	defer s.imgMu.Unlock()
	if s.recentImages == nil {
		s.recentImages = map[string]time.Time{}
	}
	for k, at := range s.recentImages {
		if now.Sub(at) >= imageGrace {
			delete(s.recentImages, k)
		}
	}
	s.recentImages[key] = now
}

// recentImageKeys are the images stored in the last imageGrace, as a
// JSON array.
func (s *Store) recentImageKeys() string {
	now := s.opts.Now()
	s.imgMu.Lock()
	keys := []string{}
	for k, at := range s.recentImages {
		if now.Sub(at) < imageGrace {
			keys = append(keys, k)
		}
	}
	s.imgMu.Unlock()
	b, _ := json.Marshal(keys)
	return string(b)
}

// deleteUnusedImagesTx deletes the images no user message refers to
// (event.UserMessage's attachments[].image.sha256), but recent ones. The
// LIKE skips, without parsing it, every message that has no image.
func (s *Store) deleteUnusedImagesTx(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM images
		WHERE sha256 NOT IN (SELECT value FROM json_each(?))
		AND sha256 NOT IN (
			SELECT json_extract(a.value, '$.image.sha256')
			FROM events e, json_each(e.payload, '$.attachments') a
			WHERE e.type = 'user_message' AND e.payload LIKE '%"sha256"%'
			AND json_extract(a.value, '$.image.sha256') IS NOT NULL)`, s.recentImageKeys())
	return err
}
