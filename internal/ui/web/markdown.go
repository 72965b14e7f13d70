package web

import (
	"bytes"
	"html"
	"regexp"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// chromaStyle is the code highlighting theme; its classes are served as
// /chroma.css.
const chromaStyle = "github"

// markdown renders model output (untrusted) to safe HTML: goldmark with
// GitHub's extensions, fenced code highlighted by chroma with classes
// (the page's CSP allows no inline styles), and every result sanitised
// by bluemonday — goldmark already drops raw HTML, the policy is the
// second wall.
type markdown struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy

	mu    sync.Mutex
	cache map[string]string // text → html, bounded (renderCacheMax)
}

// renderCacheMax bounds the rendered-text cache: a streaming message is
// rendered once per flush, and finished ones again only when their item
// changes.
const renderCacheMax = 4096

// classNamesPattern matches the class values the policy lets through:
// chroma's and goldmark's (language-go) short names. It is compiled by
// newMarkdown, not as a package variable: the {1,200} repeat compiles to
// ~190 KB, which every olly process (print mode, the sandbox helper) held
// from package initialisation on (`GODEBUG=inittrace=1`), web UI or not.
const classNamesPattern = `^[a-zA-Z0-9 _-]{1,200}$`

func newMarkdown() *markdown {
	code := &codeRenderer{format: chromahtml.New(chromahtml.WithClasses(true)), style: styles.Get(chromaStyle)}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(code, 100))),
	)
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(regexp.MustCompile(classNamesPattern)).OnElements("span", "code", "pre", "div")
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return &markdown{md: md, policy: p, cache: map[string]string{}}
}

// Render returns text as sanitised HTML.
func (m *markdown) Render(text string) string {
	m.mu.Lock()
	out, ok := m.cache[text]
	m.mu.Unlock()
	if ok {
		return out
	}
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(text), &buf); err != nil {
		// goldmark fails only on a writer error; show the text as text.
		return "<pre>" + html.EscapeString(text) + "</pre>"
	}
	out = m.policy.Sanitize(buf.String())
	m.mu.Lock()
	if len(m.cache) >= renderCacheMax {
		clear(m.cache)
	}
	m.cache[text] = out
	m.mu.Unlock()
	return out
}

// CSS writes the highlighting theme's classes.
func chromaCSS() ([]byte, error) {
	var buf bytes.Buffer
	f := chromahtml.New(chromahtml.WithClasses(true))
	if err := f.WriteCSS(&buf, styles.Get(chromaStyle)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// codeRenderer renders fenced code blocks highlighted by chroma.
type codeRenderer struct {
	format *chromahtml.Formatter
	style  *chroma.Style
}

func (r *codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.render)
}

func (r *codeRenderer) render(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	var code bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code.Write(seg.Value(source))
	}
	lexer := lexers.Get(string(n.Language(source)))
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code.String())
	if err == nil {
		var out bytes.Buffer
		if err = r.format.Format(&out, r.style, it); err == nil {
			_, _ = w.Write(out.Bytes())
			return ast.WalkSkipChildren, nil
		}
	}
	_, _ = w.WriteString("<pre><code>" + html.EscapeString(code.String()) + "</code></pre>")
	return ast.WalkSkipChildren, nil
}
