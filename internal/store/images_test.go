package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
)

func TestImagesStoredOnceByHash(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	data := []byte("\x89PNG\r\n\x1a\nrest")
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	for range 2 { // the same bytes twice: one row, the same key
		key, err := s.PutImage(ctx, "image/png", data)
		if err != nil || key != want {
			t.Fatalf("PutImage = %q, %v; want %q", key, err, want)
		}
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM images`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d rows (%v), want 1", n, err)
	}
	mime, got, err := s.Image(ctx, want)
	if err != nil || mime != "image/png" || !bytes.Equal(got, data) {
		t.Fatalf("Image = %q, %q, %v", mime, got, err)
	}
	if _, _, err := s.Image(ctx, "00"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing image: %v, want ErrNotFound", err)
	}
	if _, err := s.PutImage(ctx, "image/png", nil); err == nil {
		t.Error("empty image stored")
	}
}
