package tools

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// GetDocumentSymbols is the get_document_symbols tool: a file's outline
// (types, functions, methods, fields) with line ranges and nesting, the
// cheapest way to learn a file's structure.
type GetDocumentSymbols struct {
	Servers SymbolOutliner
	// MaxSymbols caps the outline (default 300).
	MaxSymbols int
}

func (t GetDocumentSymbols) max() int {
	if t.MaxSymbols <= 0 {
		return 300
	}
	return t.MaxSymbols
}

// Spec implements Tool.
func (t GetDocumentSymbols) Spec() llm.Tool {
	return spec("get_document_symbols", map[string]any{"MaxSymbols": t.max()},
		param{name: "path", typ: "string", desc: "File path, relative to the workspace root.", required: true})
}

// Describe implements Describer.
func (t GetDocumentSymbols) Describe(args Args) event.ToolAction {
	p, _ := args.Path()
	return event.ToolAction{Text: "Outlining " + path.Base(strings.TrimSpace(p)), FilePath: strings.TrimSpace(p)}
}

// Run implements Tool.
func (t GetDocumentSymbols) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("get_document_symbols"), nil
	}
	wp, text, bad := resolveFile(env, "get_document_symbols", args)
	if bad != nil {
		return bad, nil
	}
	syms, err := t.Servers.DocumentSymbols(ctx, wp.Abs)
	if err != nil {
		return lspFailure("get_document_symbols", wp.Rel, err)
	}
	m := lsp.NewMapper(text)
	look := event.ToolAction{Text: "Outlined " + path.Base(wp.Rel), FilePath: wp.Rel}
	total := countSymbols(syms)
	if total == 0 {
		look.Detail = "no symbols"
		return &Result{Content: fmt.Sprintf("%s defines no symbols the language server reports (%d lines).", wp.Rel, m.Lines()), Display: look}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s, %s:\n", wp.Rel, lsp.Plural(total, "symbol"), lsp.Plural(m.Lines(), "line"))
	o := outline{b: &b, m: m, max: t.max()}
	o.write(syms, 0)
	if o.n > o.max {
		fmt.Fprintf(&b, "[%d more symbols are not shown; read_file the parts you need.]\n", total-o.max)
	}
	look.Detail = lsp.Plural(total, "symbol")
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}, nil
}

// outline writes nested symbols, one per line, indented by depth.
type outline struct {
	b   *strings.Builder
	m   *lsp.Mapper
	n   int
	max int
}

func (o *outline) write(syms []lsp.DocumentSymbol, depth int) {
	for _, s := range syms {
		o.n++
		if o.n > o.max {
			return
		}
		start, _ := o.m.LineCol(s.Range.Start)
		end, _ := o.m.LineCol(s.Range.End)
		lines := fmt.Sprintf("line %d", start)
		if end > start {
			lines = fmt.Sprintf("lines %d–%d", start, end)
		}
		fmt.Fprintf(o.b, "%s%s %s", strings.Repeat("  ", depth), s.Kind, s.Name)
		if d := strings.TrimSpace(s.Detail); d != "" && len(d) <= 120 {
			fmt.Fprintf(o.b, " %s", d)
		}
		fmt.Fprintf(o.b, " (%s)\n", lines)
		o.write(s.Children, depth+1)
	}
}

func countSymbols(syms []lsp.DocumentSymbol) int {
	n := len(syms)
	for _, s := range syms {
		n += countSymbols(s.Children)
	}
	return n
}
