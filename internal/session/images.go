package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/olly-agent/olly/internal/event"
)

// ImageStore keeps the bytes of images attached to prompts, by SHA-256
// (*store.Store). The service uses it when its store implements it.
type ImageStore interface {
	PutImage(ctx context.Context, mimeType string, data []byte) (string, error)
	Image(ctx context.Context, sha string) (mimeType string, data []byte, err error)
}

// ImageLoader reads an image's bytes by SHA-256.
type ImageLoader func(ctx context.Context, sha string) ([]byte, error)

// NewImageRef describes image bytes: their type, hash and size.
func NewImageRef(mimeType string, data []byte) event.ImageRef {
	sum := sha256.Sum256(data)
	return event.ImageRef{MimeType: mimeType, SHA256: hex.EncodeToString(sum[:]), Size: len(data), Data: data}
}

// storeImages stores the bytes of a user message's images before the
// message is recorded: the log keeps only their references.
func (s *Service) storeImages(ctx context.Context, um event.UserMessage) error {
	for _, a := range um.Attachments {
		if a.Image == nil || len(a.Image.Data) == 0 {
			continue
		}
		is, ok := s.store.(ImageStore)
		if !ok {
			return fmt.Errorf("image %s: this session store cannot keep images", a.Path)
		}
		if _, err := is.PutImage(ctx, a.Image.MimeType, a.Image.Data); err != nil {
			return err
		}
	}
	return nil
}

// imageLoader reads images from the service's store (nil when it keeps
// none).
func (s *Service) imageLoader() ImageLoader {
	is, ok := s.store.(ImageStore)
	if !ok {
		return nil
	}
	return func(ctx context.Context, sha string) ([]byte, error) {
		_, data, err := is.Image(ctx, sha)
		return data, err
	}
}

// userImages are the images of a user message, for its conversation entry.
func userImages(p event.UserMessage) []event.ImageRef {
	var out []event.ImageRef
	for _, a := range p.Attachments {
		if a.Image != nil {
			out = append(out, *a.Image)
		}
	}
	return out
}

// SetImageLoader sets where the conversation reads the bytes of images
// recorded in the log (by reference only); nil: such images are sent as
// a note that they could not be loaded.
func (c *Conversation) SetImageLoader(l ImageLoader) {
	c.mu.Lock()
	c.loader = l
	clear(c.unloadable) // an image that could not be loaded may now be
	c.gen++
	c.mu.Unlock()
}

// images are the bytes of an entry's images, loaded once. An image that
// cannot be loaded is left out, and note says which; it is not tried
// again until the loader changes (SetImageLoader), so the rendering that
// carries the note is final (render_cache.go) and the turn's later
// requests (a conversation lasts one turn: newTurn) neither render it
// again nor read the store for it. Called with c.mu held.
func (c *Conversation) images(e *entry) (data [][]byte, note string) {
	for i := range e.images {
		ref := &e.images[i]
		if len(ref.Data) == 0 && c.loader != nil && !c.unloadable[ref.SHA256] {
			if b, err := c.loader(context.Background(), ref.SHA256); err == nil && len(b) > 0 {
				ref.Data = b
			} else {
				if c.unloadable == nil {
					c.unloadable = map[string]bool{}
				}
				c.unloadable[ref.SHA256] = true
			}
		}
		if len(ref.Data) == 0 {
			note += fmt.Sprintf("\n(An attached image, %s of %d bytes, could not be loaded.)", ref.MimeType, ref.Size)
			continue
		}
		data = append(data, ref.Data)
	}
	return data, note
}

// MaxImageBytes caps one attached image: larger images are refused with a
// warning (vision models scale them down anyway, and every request of
// the session carries them).
const MaxImageBytes = 10 << 20

// imageTypes are the image types olly attaches: what Ollama's and
// OpenAI-compatible vision models read.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// ImageType checks image bytes and returns their type, sniffed from the
// content (never trusted from a name or a client): PNG, JPEG, GIF or WebP,
// at most MaxImageBytes.
func ImageType(data []byte) (string, error) {
	switch {
	case len(data) == 0:
		return "", fmt.Errorf("the image is empty")
	case len(data) > MaxImageBytes:
		return "", fmt.Errorf("the image is %s, over the %s limit", ByteSize(len(data)), ByteSize(MaxImageBytes))
	}
	t := http.DetectContentType(data)
	if !imageTypes[t] {
		return "", fmt.Errorf("it is not a PNG, JPEG, GIF or WebP image (it reads as %s)", t)
	}
	return t, nil
}

// ByteSize formats a size for people.
func ByteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
