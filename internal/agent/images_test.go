package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// testPNG is a small real PNG.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImagesReachVisionModels sends @shot.png and an RPC-style image to a
// vision model over both dialects: Ollama's message images (base64 on the
// wire) and OpenAI's image_url parts (data URLs), which the fake decodes
// and checks. The log keeps references; a later turn, built from the log,
// sends the images again, loaded from the store.
func TestImagesReachVisionModels(t *testing.T) {
	for _, dialect := range []string{"ollama", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			h := newHarness(t, true, harnessOpt{dialect: dialect, caps: []string{"completion", "vision"}})
			pic := testPNG(t)
			h.write("shot.png", string(pic))
			other := append(testPNG(t), 0) // different bytes, still a PNG
			h.srv.Enqueue(llmtest.Reply(llmtest.Text("A red dot. [TASK_COMPLETE]")), llmtest.Reply(llmtest.Text("Still red. [TASK_COMPLETE]")))
			res, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "what is in @shot.png?",
				Images: []event.ImageRef{session.NewImageRef("image/png", other)}})
			if err != nil {
				t.Fatal(err)
			}
			h.drain(res.Turn)
			if res.Status != event.FinishDone {
				t.Fatalf("turn ended %s: %s", res.Status, res.Error)
			}
			user := lastUser(t, h.chats()[0])
			if len(user.Images) != 2 || !bytes.Equal(user.Images[0], pic) || !bytes.Equal(user.Images[1], other) {
				t.Fatalf("the model got %d image(s), want shot.png then the prompt's image", len(user.Images))
			}
			if !strings.Contains(user.Content, "[Image shot.png (image/png") {
				t.Errorf("the message does not say which image is attached: %q", user.Content)
			}
			if dialect == "ollama" {
				want := `"images":["` + base64.StdEncoding.EncodeToString(pic) + `"`
				if !strings.Contains(string(h.chats()[0].Body), want) {
					t.Errorf("Ollama wire: no base64 images field in %.300s", h.chats()[0].Body)
				}
			} else if !strings.Contains(string(h.chats()[0].Body), `"url":"data:image/png;base64,`+base64.StdEncoding.EncodeToString(pic)) {
				t.Errorf("OpenAI wire: no image_url data URL in %.300s", h.chats()[0].Body)
			}
			// The log holds references, never the bytes.
			var um event.UserMessage
			for _, ev := range h.stored() {
				if p, ok := ev.Data.(event.UserMessage); ok {
					um = p
				}
			}
			if len(um.Attachments) != 2 || um.Attachments[0].Image == nil || um.Attachments[0].Image.Size != len(pic) ||
				len(um.Attachments[0].Image.SHA256) != 64 || um.Attachments[0].Image.Data != nil {
				t.Fatalf("stored attachments = %+v", um.Attachments)
			}
			// The next turn's history is rebuilt from the log: the images
			// come back from the store.
			h.prompt("and now?")
			first := h.chats()[1].Messages[1]
			if len(first.Images) != 2 || !bytes.Equal(first.Images[0], pic) {
				t.Errorf("the second turn's history has %d image(s) on the first prompt, want 2", len(first.Images))
			}
		})
	}
}

// TestImagesRefusedWithoutVision: a model without vision fails the turn
// with an error naming a model that has it; the prompt stays in the log.
func TestImagesRefusedWithoutVision(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.agent.vision = func(context.Context) []string { return []string{"qwen2.5vl:7b"} }
	h.write("shot.png", string(testPNG(t)))
	res := h.prompt("what is in @shot.png?")
	if res.Status != event.FinishFailed || !strings.Contains(res.Error, "cannot read images") || !strings.Contains(res.Error, "qwen2.5vl:7b") {
		t.Fatalf("turn ended %s: %q; want a failure naming qwen2.5vl:7b", res.Status, res.Error)
	}
	if n := len(h.chats()); n != 0 {
		t.Errorf("%d chat request(s) sent to a model without vision", n)
	}
	kept := false
	for _, ev := range h.stored() {
		if p, ok := ev.Data.(event.UserMessage); ok && p.Text == "what is in @shot.png?" {
			kept = true
		}
	}
	if !kept {
		t.Error("the prompt is not in the log")
	}
	// A later prompt without images runs; the earlier image is left out
	// with a note.
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("OK. [TASK_COMPLETE]")))
	if res := h.prompt("never mind"); res.Status != event.FinishDone {
		t.Fatalf("next turn: %s %s", res.Status, res.Error)
	}
	msgs := h.chats()[0].Messages
	if len(msgs[1].Images) != 0 || !strings.Contains(msgs[1].Content, "left out: this model cannot read images") {
		t.Errorf("the earlier image reached a model without vision: %+v", msgs[1])
	}
}

func TestImageMentionsChecked(t *testing.T) {
	h := newHarness(t, true, harnessOpt{caps: []string{"completion", "vision"}})
	h.write("fake.png", "not an image at all")
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("OK. [TASK_COMPLETE]")))
	res := h.prompt("look at @fake.png")
	if res.Status != event.FinishDone {
		t.Fatalf("turn: %s %s", res.Status, res.Error)
	}
	w := payloads[event.Warning](h.live)
	if len(w) == 0 || !strings.Contains(w[0].Message, "not a PNG, JPEG, GIF or WebP image") {
		t.Errorf("warnings = %+v", w)
	}
	if u := lastUser(t, h.chats()[0]); len(u.Images) != 0 {
		t.Error("a file that is no image was sent as one")
	}
}

func lastUser(t *testing.T, r *llmtest.Request) llm.Message {
	t.Helper()
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i]
		}
	}
	t.Fatal("no user message")
	return llm.Message{}
}
