package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// GetHoverInfo is the get_hover_info tool: a symbol's type signature and
// documentation, as an editor shows on hover.
type GetHoverInfo struct {
	Servers HoverProvider
	// MaxBytes cuts long documentation (default 4000).
	MaxBytes int
}

// Spec implements Tool.
func (t GetHoverInfo) Spec() llm.Tool {
	return spec("get_hover_info", nil, positionParams()...)
}

// Describe implements Describer.
func (t GetHoverInfo) Describe(args Args) event.ToolAction {
	return describeLookup("Inspecting", args)
}

// Run implements Tool.
func (t GetHoverInfo) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("get_hover_info"), nil
	}
	max := t.MaxBytes
	if max <= 0 {
		max = 4000
	}
	tg, bad := resolveTarget(env, "get_hover_info", args)
	if bad != nil {
		return bad, nil
	}
	h, err := t.Servers.Hover(ctx, tg.file.Abs, tg.pos)
	if err != nil {
		return lspFailure("get_hover_info", tg.where(), err)
	}
	look := event.ToolAction{Text: "Hover info for " + tg.symbolOr(tg.where()), FilePath: tg.file.Rel, StartLine: tg.line}
	if h == nil || strings.TrimSpace(h.Contents) == "" {
		look.Detail = "none"
		return &Result{Content: fmt.Sprintf("No hover information for %s at %s; the position may not be on an identifier.", tg.label(), tg.where()), Display: look}, nil
	}
	body := strings.TrimSpace(h.Contents)
	if len(body) > max {
		cut := max
		for cut > 0 && !isRuneStart(body[cut]) {
			cut--
		}
		body = body[:cut] + "\n[… documentation cut]"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hover info for %s at %s:\n%s\n%s", tg.label(), tg.where(), readContextAroundLocation(tg.mapper, tg.line, 0), body)
	return &Result{Content: b.String(), Display: look}, nil
}
