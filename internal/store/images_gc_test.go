package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
// stays, and one stored a moment ago (its message not yet appended) stays
// until a later delete.
func TestDeleteSessionCollectsImages(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := openTest(t, Options{Now: c.now})
	for _, id := range []string{"a", "b", "e"} {
		newSession(t, s, id)
	}
	appendImages(t, s, "a", "shared", "only-a")
	appendImages(t, s, "b", "shared", "only-b")
	appendText(t, s, "b", "assistant_text", `not an image: "sha256"`)
	appendImages(t, s, "e", "forked")
	if _, err := s.Fork(ctx, "e", 0, "f"); err != nil {
		t.Fatal(err)
	}
	c.advance(imageGrace)
	pending, err := s.PutImage(ctx, "image/png", []byte("pending")) // its message is on its way
	if err != nil {
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
	if has("forked") || has("pending") {
		t.Errorf("after deleting the fork: its image %v, the pending one (never referred to) %v", has("forked"), has("pending"))
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM images`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d images left (%v)", n, err)
	}
}

func sha(img string) string {
	sum := sha256.Sum256([]byte(img))
	return hex.EncodeToString(sum[:])
}
