package store

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Payloads read back share blocks: each must still be its own value, so
// that appending to one (json.RawMessage is a []byte) never changes the
// next, and a payload larger than a block must come back whole.
func TestReadPayloadsAreIndependent(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	texts := []string{"one", "two", strings.Repeat("x", arenaChunk), "three", ""}
	for _, x := range texts {
		appendText(t, s, "a", "note", x)
	}
	evs, err := s.Path(context.Background(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(texts) {
		t.Fatalf("read %d events, want %d", len(evs), len(texts))
	}
	want := make([][]byte, len(evs))
	for i := range evs {
		want[i] = bytes.Clone(evs[i].Payload)
		if !strings.Contains(string(evs[i].Payload), `"`+texts[i]+`"`) {
			t.Errorf("event %d payload %.40q does not hold its text", i+1, evs[i].Payload)
		}
	}
	for i := range evs {
		evs[i].Payload = append(evs[i].Payload, "GARBAGE"...)
	}
	for i := range evs {
		if got := evs[i].Payload[:len(want[i])]; !bytes.Equal(got, want[i]) {
			t.Errorf("event %d payload changed by appending to another: %.40q", i+1, got)
		}
	}
	if evs[0].Type != "note" || evs[1].Type != "note" {
		t.Errorf("types %q, %q", evs[0].Type, evs[1].Type)
	}
}

func TestEventsWithLimitReadsThatMany(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	for _, x := range []string{"1", "2", "3", "4"} {
		appendText(t, s, "a", "note", x)
	}
	evs, err := s.Events(context.Background(), "a", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Seq != 2 || evs[1].Seq != 3 {
		t.Fatalf("Events(after 1, limit 2) = %d events %+v", len(evs), evs)
	}
}
