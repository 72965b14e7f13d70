package tui

import (
	"strings"
	"testing"
)

// FuzzCodeBlocks: any answer text (the model's, untrusted) parses without
// panicking, and every block found is a run of the text's own lines.
func FuzzCodeBlocks(f *testing.F) {
	for _, s := range []string{"```go\nx\n```", "~~~\n~~~", "  ````sh\n```\n````", "```", "text\n```a`b\nx\n```\n", "\n```\n\n```\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, cb := range codeBlocks(text) {
			if !strings.Contains(text, cb.code) {
				t.Fatalf("block %q is not part of the text %q", cb.code, text)
			}
			if strings.ContainsAny(cb.lang, " \n") {
				t.Fatalf("language %q holds a space or newline", cb.lang)
			}
		}
	})
}
