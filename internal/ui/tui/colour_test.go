package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/olly-agent/olly/internal/event"
)

// TestGoldenColours keeps the colour escapes of a screen — a finished turn
// (thinking, tool rows, +N −N, an error, markdown with code) under an edit
// approval with its diff — in the dark and the light palette, as the model
// renders them (true colour) and as Bubble Tea writes them to a 16-colour
// terminal, so a theme regression shows in review.
func TestGoldenColours(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dark    bool
		profile colorprofile.Profile
	}{
		{"dark_truecolor", true, colorprofile.TrueColor},
		{"light_truecolor", false, colorprofile.TrueColor},
		{"dark_ansi16", true, colorprofile.ANSI},
		{"light_ansi16", false, colorprofile.ANSI},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(90, 34, Deps{})
			m.setStyles(tc.dark)
			m.Update(history(finishedTurn()))
			m.Update(eventMsg{event.Event{Session: "S1", Seq: 90, Turn: 1, Data: editApproval("A2")}})
			var buf bytes.Buffer
			w := &colorprofile.Writer{Forward: &buf, Profile: tc.profile}
			if _, err := w.WriteString(m.Render()); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, "\x1b[") {
				t.Fatal("the screen has no colour escapes")
			}
			golden.RequireEqual(t, out)
		})
	}
}

func TestPalettesDiffer(t *testing.T) {
	render := func(dark bool) string {
		m := newModel(90, 34, Deps{})
		m.setStyles(dark)
		m.Update(history(finishedTurn()))
		return m.Render()
	}
	if render(true) == render(false) {
		t.Error("the light and dark palettes render the same escapes")
	}
}
