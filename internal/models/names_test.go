package models

import (
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

func TestResolveName(t *testing.T) {
	known := map[string]bool{"qwen3:8b": true, "nomic-embed-text:latest": true, "plain": true}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"qwen3:8b", "qwen3:8b", true},
		{" qwen3:8b ", "qwen3:8b", true},
		{"nomic-embed-text", "nomic-embed-text:latest", true},
		{"plain", "plain", true},
		{"qwen3", "", false}, // only :latest is implied
		{"qwen3:4b", "", false},
		{"", "", false},
	} {
		got, ok := ResolveName(known, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ResolveName(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCheckContextCap(t *testing.T) {
	for n, ok := range map[int]bool{0: true, 512: true, 1 << 20: true, 8192: true, -1: false, 1: false, 511: false, 1<<20 + 1: false} {
		err := CheckContextCap(n)
		if (err == nil) != ok {
			t.Errorf("CheckContextCap(%d) = %v, want ok %v", n, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "from 512 to 1048576") {
			t.Errorf("CheckContextCap(%d) does not say what fits: %v", n, err)
		}
	}
}

func TestCapabilityWords(t *testing.T) {
	if got := CapabilityWords(llm.Capabilities{}); got == nil || len(got) != 0 {
		t.Errorf("no capabilities: %#v, want an empty list", got)
	}
	got := CapabilityWords(llm.Capabilities{Embedding: true, Chat: true, Vision: true, Tools: true, Thinking: true, FIM: true})
	if want := []string{"chat", "tools", "thinking", "vision", "fim", "embedding"}; !slices.Equal(got, want) {
		t.Errorf("CapabilityWords = %q, want %q", got, want)
	}
}
