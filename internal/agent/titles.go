package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/session"
)

// Session titles (agent.sessionTitleGeneration, the seed's
// titleGenerator). The session service gives every new session a title
// from its first prompt at once; with currentModel or selectModel it then
// asks a TitleGenerator, in the background and with a 15 s timeout
// (session.DefaultTitleTimeout), for a better one.

// Title generation modes.
const (
	TitlesFirstMessage = "firstMessage" // the first prompt's first line; no model call
	TitlesCurrentModel = "currentModel" // the session's model writes the title
	TitlesSelectModel  = "selectModel"  // agent.sessionTitleModel writes it
)

//go:embed titles_prompt.md
var titlesPrompt string

// Title limits.
const (
	// titlePromptRunes bounds the prompt shown to the title model.
	titlePromptRunes = 1000
	// titleMaxTokens bounds the answer; generous, because a reasoning
	// model that ignores think:false writes <think> first.
	titleMaxTokens = 256
)

// TitleConfig is what the title generator reads from the settings.
type TitleConfig struct {
	// Mode is agent.sessionTitleGeneration (default firstMessage).
	Mode string
	// Model is agent.sessionTitleModel, for selectModel.
	Model string
}

// TitleConfigFrom reads the title settings.
func TitleConfigFrom(s *config.Settings) TitleConfig {
	return TitleConfig{Mode: s.Agent.SessionTitleGeneration, Model: s.Agent.SessionTitleModel}
}

// TitleGenerator writes session titles with a model; it implements
// session.TitleGenerator.
type TitleGenerator struct {
	a   *Agent
	cfg TitleConfig
}

// NewTitleGenerator returns the title generator of agent a.
func NewTitleGenerator(a *Agent, cfg TitleConfig) *TitleGenerator {
	return &TitleGenerator{a: a, cfg: cfg}
}

// GenerateTitle writes a title for a session whose first prompt is prompt;
// sessionModel is the session's model ("" : agentMode.model). With
// firstMessage it returns "" and no error: the first-message title stays.
// The answer is cleaned (reasoning, quotes, "Title:" and markdown removed,
// one line, at most 60 characters); an answer with nothing left is an
// error.
func (g *TitleGenerator) GenerateTitle(ctx context.Context, prompt, sessionModel string) (string, error) {
	ctx, set := g.a.pin(ctx) // setup.go: one server for the whole title
	var model string
	switch g.cfg.Mode {
	case TitlesCurrentModel:
		model = sessionModel
		if model == "" {
			model = set.cfg.Model
		}
	case TitlesSelectModel:
		model = g.cfg.Model
		if model == "" {
			return "", errors.New("agent.sessionTitleGeneration is selectModel but agent.sessionTitleModel is empty: set a title model")
		}
	default:
		return "", nil
	}
	if model == "" {
		return "", errors.New("no model to write titles with: set agentMode.model")
	}
	d, err := g.a.modelDetails(ctx, model)
	if err != nil {
		return "", fmt.Errorf("title model %s: %w", model, err)
	}
	text, err := g.a.ask(ctx, oneShot{model: model, system: titlesPrompt, user: preview(prompt, titlePromptRunes),
		numCtx: set.cfg.numCtx(model, d), thinks: d.Capabilities.Thinking, temperature: 0.2, numPredict: titleMaxTokens, retry: true})
	if err != nil {
		return "", fmt.Errorf("title model %s: %w", model, err)
	}
	title := cleanTitle(text)
	if title == "" {
		return "", fmt.Errorf("title model %s wrote no usable title (%q)", model, preview(text, 80))
	}
	return title, nil
}

// asciiLower lowercases A-Z only, so byte offsets in the result are
// offsets in s (strings.ToLower turns invalid UTF-8 into longer
// replacement characters).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// titleLabel reports a label before the title: "Title", "Session title",
// "Suggested title".
func titleLabel(s string) bool {
	s = strings.ToLower(strings.Trim(s, "*_ "))
	return strings.HasSuffix(s, "title") && len(strings.Fields(s)) <= 3
}

// stripThink removes reasoning written into the answer: <think>…</think>
// blocks, and an unclosed <think> to the end (the answer was cut off while
// reasoning).
func stripThink(s string) string {
	for {
		low := asciiLower(s)
		i := strings.Index(low, "<think>")
		if i < 0 {
			// A closing tag without its opening: the server stripped the
			// opening (some templates start the reasoning themselves).
			if j := strings.Index(low, "</think>"); j >= 0 {
				return s[j+len("</think>"):]
			}
			return s
		}
		j := strings.Index(low[i:], "</think>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
}

// quoteRunes are the quotes models put around titles.
const quoteRunes = "\"'`“”‘’«»„‚「」『』"

// cleanTitle turns a model's answer into a title: reasoning removed, the
// first non-empty line, without a "Title:" label, markdown emphasis or
// heading marks, surrounding quotes and a final full stop; control
// characters dropped; cut at 60 characters on a word boundary. "" when
// nothing is left.
func cleanTitle(text string) string {
	// Control characters go first: removed later, they could join the
	// pieces of a tag ("<\x00think>").
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r) || r == unicode.ReplacementChar:
			return -1
		}
		return r
	}, text)
	text = stripThink(text)
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	for prev := ""; prev != line; {
		prev = line
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "#*_>- ")
		line = strings.TrimRight(line, "*_ ")
		if k := strings.Index(line, ":"); k >= 0 && titleLabel(line[:k]) {
			line = line[k+1:]
		}
		line = strings.Trim(line, quoteRunes+" ")
		line = strings.TrimRight(line, ".。")
	}
	return session.TitleFromPrompt(line)
}
