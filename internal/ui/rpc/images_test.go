package rpc

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"strings"
	"testing"

	"github.com/olly-agent/olly/rpcproto"
)

func TestPromptImagesDecodePiContent(t *testing.T) {
	var b bytes.Buffer
	if err := gif.Encode(&b, image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(b.Bytes())
	got, err := promptImages([]rpcproto.ImageContent{{Type: "image", Data: data, MimeType: "image/gif"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].MimeType != "image/gif" || !bytes.Equal(got[0].Data, b.Bytes()) || got[0].Size != b.Len() || len(got[0].SHA256) != 64 {
		t.Fatalf("decoded %+v", got)
	}
	// The type comes from the bytes: a client's wrong label is refused.
	_, err = promptImages([]rpcproto.ImageContent{{Type: "image", Data: data, MimeType: "image/png"}})
	if err == nil || !strings.Contains(err.Error(), `"image/png", but the data is image/gif`) {
		t.Errorf("mislabelled image: %v", err)
	}
}
