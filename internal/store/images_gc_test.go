package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/olly-agent/olly/event"
)

// appendImages stores images and appends a user message attaching them,
// as the session service does (bytes first, then the message).
func appendImages(t *testing.T, s *Store, session string, images ...string) {
	t.Helper()
	um := event.UserMessage{Text: "look"}
	for _, img := range images {
		key, err := s.PutImage(context.Background(), "image/png", []byte(img))
		if err != nil {
			t.Fatal(err)
		}
		um.Attachments = append(um.Attachments, event.Attachment{Path: img + ".png",
			Image: &event.ImageRef{MimeType: "image/png", SHA256: key, Size: len(img)}})
	}
	payload, err := json.Marshal(um)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(context.Background(), &EventRecord{Session: session, Type: string(event.TypeUserMessage), Payload: payload}); err != nil {
		t.Fatal(err)
	}
}

// Deleting a session deletes the images no other session refers to; an
// image shared with another session (the same bytes, or a fork's copy)
// stays, and one stored a moment ago (its message not yet appended) stays.
// Only the deleted session's images are looked at: an image no message
// ever referred to is not swept by deleting another session.
func TestDeleteSessionCollectsImages(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := openTest(t, Options{Now: c.now})
	for _, id := range []string{"a", "b", "e", "g"} {
		newSession(t, s, id)
	}
	appendImages(t, s, "a", "shared", "only-a")
	appendImages(t, s, "b", "shared", "only-b")
	appendText(t, s, "b", "assistant_text", `not an image: "sha256"`)
	appendImages(t, s, "e", "forked")
	appendImages(t, s, "g", "renewed")
	if _, err := s.Fork(ctx, "e", 0, "f"); err != nil {
		t.Fatal(err)
	}
	c.advance(imageGrace)
	pending, err := s.PutImage(ctx, "image/png", []byte("pending")) // its message is on its way
	if err != nil {
		t.Fatal(err)
	}
	// The same bytes stored again (by this or another process, for a
	// message on its way) start the grace again.
	if _, err := s.PutImage(ctx, "image/png", []byte("renewed")); err != nil {
		t.Fatal(err)
	}
	has := func(img string) bool {
		t.Helper()
		key := sha(img)
		if img == "pending" {
			key = pending
		}
		_, _, err := s.Image(ctx, key)
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	del := func(id string) {
		t.Helper()
		if err := s.DeleteSession(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	del("a")
	if !has("shared") || has("only-a") || !has("only-b") || !has("pending") {
		t.Errorf("after deleting a: shared %v, only-a %v, only-b %v, pending %v", has("shared"), has("only-a"), has("only-b"), has("pending"))
	}
	del("g")
	if !has("renewed") {
		t.Error("deleting a session took an image stored again a moment ago")
	}
	del("e")
	if !has("forked") {
		t.Error("deleting a session took the image its fork still shows")
	}
	del("b")
	if has("shared") || has("only-b") || !has("pending") {
		t.Errorf("after deleting b: shared %v, only-b %v, pending %v", has("shared"), has("only-b"), has("pending"))
	}
	c.advance(imageGrace)
	del("f")
	if has("forked") || !has("pending") || !has("renewed") {
		t.Errorf("after deleting the fork: its image %v, the pending one (never referred to) %v, the renewed one (not the fork's) %v",
			has("forked"), has("pending"), has("renewed"))
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM images`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d images left, want 2 (%v)", n, err)
	}
}

// A second olly process sharing the database stores an image (its
// message on its way) the first process's delete must keep: the grace is
// the database's created_at, not one process's memory.
func TestDeleteSessionKeepsImageStoredByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), FileName)
	open := func() *Store {
		s, err := Open(ctx, path, Options{Now: c.now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	one, two := open(), open()
	newSession(t, one, "a")
	appendImages(t, one, "a", "img")
	c.advance(2 * imageGrace)
	if _, err := two.PutImage(ctx, "image/png", []byte("img")); err != nil {
		t.Fatal(err)
	}
	if err := one.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := one.Image(ctx, sha("img")); err != nil {
		t.Fatalf("the image the other process just stored is gone: %v", err)
	}
}

func sha(img string) string {
	sum := sha256.Sum256([]byte(img))
	return hex.EncodeToString(sum[:])
}
