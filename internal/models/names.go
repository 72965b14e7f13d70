package models

import (
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// What every frontend that changes a model's settings shares (`olly
// models`, the settings service behind RPC and the web page): which model
// a typed name means, the bounds of a context cap, and how capabilities
// are named.

// The bounds of a per-model context cap (`olly models set --context`,
// set_model_context); 0 is no cap.
const (
	MinContextCap = 512
	MaxContextCap = 1 << 20
)

// CheckContextCap refuses a cap outside the bounds, saying what fits.
func CheckContextCap(n int) error {
	if n < 0 || (n > 0 && n < MinContextCap) || n > MaxContextCap {
		return fmt.Errorf("%d: expected 0 (no cap) or a window from %d to %d tokens", n, MinContextCap, MaxContextCap)
	}
	return nil
}

// ResolveName returns the known model a typed name means: the name itself
// (spaces around it dropped), or with Ollama's ":latest" when it was left
// out. ok is false when known has neither.
func ResolveName(known map[string]bool, name string) (string, bool) {
	name = strings.TrimSpace(name)
	if known[name] {
		return name, true
	}
	if name != "" && !strings.Contains(name, ":") && known[name+":latest"] {
		return name + ":latest", true
	}
	return "", false
}

// CapabilityWords names the capabilities a model has, as people say
// them, in a fixed order: chat, tools, thinking, vision, fim, embedding.
// Never nil.
func CapabilityWords(c llm.Capabilities) []string {
	w := []string{}
	for _, x := range []struct {
		on   bool
		name string
	}{{c.Chat, "chat"}, {c.Tools, "tools"}, {c.Thinking, "thinking"}, {c.Vision, "vision"}, {c.FIM, "fim"}, {c.Embedding, "embedding"}} {
		if x.on {
			w = append(w, x.name)
		}
	}
	return w
}
