package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Images are shared: the same bytes attached in two sessions (or copied
// by a fork) are one row. So an image goes only when no user message of
// any session refers to it any more. DeleteSession collects, before it
// deletes the session's events, the images the session's user messages
// refer to, and after, in the same transaction, deletes those of them no
// other user message refers to. A session without images costs one read
// of its own events: the events table of other sessions is read only for
// the images the deleted session had.
//
// An image is stored just before the user message that refers to it is
// appended (the session service stores the bytes first), possibly by
// another olly process sharing the database: an image stored in the last
// imageGrace (images.created_at, which storing the same bytes again
// renews) is kept, or a delete running between the two would take the
// image from under the new message. An image kept that way, or one never
// referred to, is collected by a later delete of a session referring to it.

// imageGrace is how long a stored image is kept without a reference.
const imageGrace = time.Minute

// sessionImagesTx returns the images (SHA-256) the user messages of
// session refer to (event.UserMessage's attachments[].image.sha256), as a
// JSON array, or "" when there are none. The LIKE skips, without parsing
// it, every message that has no image.
func sessionImagesTx(ctx context.Context, tx *sql.Tx, session string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT json_extract(a.value, '$.image.sha256')
		FROM events e, json_each(e.payload, '$.attachments') a
		WHERE e.session_id = ? AND e.type = 'user_message' AND e.payload LIKE '%"sha256"%'
		AND json_extract(a.value, '$.image.sha256') IS NOT NULL`, session)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return "", err
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil || len(keys) == 0 {
		return "", err
	}
	b, err := json.Marshal(keys)
	return string(b), err
}

// deleteUnusedImagesTx deletes, of the images keys (a JSON array of
// SHA-256), those stored before the grace and no user message refers to.
// instr picks, without parsing it, only the messages naming the image.
func (s *Store) deleteUnusedImagesTx(ctx context.Context, tx *sql.Tx, keys string) error {
	if keys == "" {
		return nil
	}
	before := s.opts.Now().Add(-imageGrace).UnixMilli()
	_, err := tx.ExecContext(ctx, `DELETE FROM images
		WHERE sha256 IN (SELECT value FROM json_each(?)) AND created_at <= ?
		AND NOT EXISTS (
			SELECT 1 FROM events e, json_each(e.payload, '$.attachments') a
			WHERE e.type = 'user_message' AND instr(e.payload, images.sha256) > 0
			AND json_extract(a.value, '$.image.sha256') = images.sha256)`, keys, before)
	return err
}
