package agent

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/workspace"
)

// isImagePath reports whether a mention names an image by its extension.
func isImagePath(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// attachImage reads an image mention: its bytes go with the message (for
// vision models), its reference into the log.
func attachImage(rel, abs string, size int64) (attachment, bool, error) {
	if size > session.MaxImageBytes {
		return attachment{}, false, fmt.Errorf("cannot attach @%s: the image is %s, over the %s limit", rel, session.ByteSize(int(size)), session.ByteSize(session.MaxImageBytes))
	}
	data, err := workspace.ReadRegularNoFollow(abs, session.MaxImageBytes+1)
	if err != nil {
		return attachment{}, false, fmt.Errorf("cannot attach @%s: %w", rel, err)
	}
	mime, err := session.ImageType(data)
	if err != nil {
		return attachment{}, false, fmt.Errorf("cannot attach @%s: %w", rel, err)
	}
	ref := session.NewImageRef(mime, data)
	return attachment{Attachment: event.Attachment{Path: rel, Image: &ref},
		block: fmt.Sprintf("[Image %s (%s, %s) is attached to this message.]", rel, mime, session.ByteSize(len(data)))}, true, nil
}

// promptImages are the images given with the prompt (RPC image content),
// as attachments named "image N".
func promptImages(in session.PromptInput) ([]event.Attachment, []string) {
	var atts []event.Attachment
	var blocks []string
	for i, img := range in.Images {
		ref := img
		if ref.SHA256 == "" {
			ref = session.NewImageRef(img.MimeType, img.Data)
		}
		name := fmt.Sprintf("image %d", i+1)
		atts = append(atts, event.Attachment{Path: name, Image: &ref})
		blocks = append(blocks, fmt.Sprintf("[Image %d (%s, %s) is attached to this message.]", i+1, ref.MimeType, session.ByteSize(ref.Size)))
	}
	return atts, blocks
}

// hasImages reports whether the turn's prompt carries images.
func hasImages(um event.UserMessage) bool {
	for _, a := range um.Attachments {
		if a.Image != nil {
			return true
		}
	}
	return false
}

// VisionModels lists the models with the vision capability, for the
// error that asks for one (the models table; nil: unknown).
type VisionModels func(ctx context.Context) []string

// noVision is the error for images sent to a model that cannot see.
func (r *run) noVision(ctx context.Context) error {
	msg := fmt.Sprintf("model %s cannot read images (it has no vision capability)", r.model)
	var have []string
	if r.a.vision != nil {
		have = r.a.vision(ctx)
	}
	if len(have) > 0 {
		return fmt.Errorf("%s; %s can: switch to it (/model in the terminal UI, --model %s, or set_model over RPC) and send the prompt again — it is in the prompt history (↑)", msg, strings.Join(have, ", "), have[0])
	}
	return fmt.Errorf("%s, and no model you have can (`olly models` shows capabilities; pull one, e.g. `ollama pull qwen2.5vl`); send the prompt again without the image, or with a vision model — it is in the prompt history (↑)", msg)
}

// dropImages removes images from messages for a model without vision:
// each message says an image was left out instead.
func dropImages(msgs []llm.Message) {
	for i := range msgs {
		if n := len(msgs[i].Images); n > 0 {
			msgs[i].Images = nil
			msgs[i].Content += fmt.Sprintf("\n(%d attached image(s) left out: this model cannot read images.)", n)
		}
	}
}
