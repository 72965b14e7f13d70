package web

import (
	"bytes"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxDepth bounds the recursion of the conversion: deeper content is
// kept as plain text (a page of a million nested divs must not exhaust
// anything).
const maxDepth = 200

// ToMarkdown converts an HTML page to readable Markdown: headings, links
// (made absolute against base), lists, code blocks, block quotes and
// tables roughly; scripts, styles, forms and other page furniture
// dropped. The title, when the page has one, comes first as a heading.
func ToMarkdown(r io.Reader, base *url.URL) (title, md string, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return "", "", err
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		// The parser gives up on pathological nesting (more than 512 open
		// elements): the page's text is still worth reading.
		return "", strings.ToValidUTF8(tidy(plainText(data)), "\uFFFD"), nil
	}
	c := &converter{base: base}
	title = strings.TrimSpace(collapse(textOf(find(doc, atom.Title))))
	body := find(doc, atom.Body)
	if body == nil {
		body = doc
	}
	out := c.blocks(body, 0)
	// The parser passes invalid bytes through; the model gets valid text.
	return strings.ToValidUTF8(title, "\uFFFD"), strings.ToValidUTF8(tidy(out), "\uFFFD"), nil
}

type converter struct {
	base *url.URL
}

// dropped are elements whose content is never text for a reader.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Canvas: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Head: true,
	atom.Form: true, atom.Button: true, atom.Input: true, atom.Select: true, atom.Textarea: true,
	atom.Nav: true, atom.Math: true,
}

// blockTags start a block of their own.
var blockTags = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Aside: true, atom.Figure: true, atom.Figcaption: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Address: true, atom.Details: true, atom.Summary: true, atom.Body: true, atom.Html: true,
	atom.Center: true, atom.Caption: true,
}

// blocks renders n's children as a sequence of Markdown blocks.
func (c *converter) blocks(n *html.Node, depth int) string {
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		b.WriteString(c.node(ch, depth+1))
	}
	return b.String()
}

// node renders one node: a block (surrounded by blank lines) or inline
// text.
func (c *converter) node(n *html.Node, depth int) string {
	switch n.Type {
	case html.TextNode:
		return collapse(n.Data)
	case html.ElementNode:
	case html.DocumentNode:
		return c.blocks(n, depth)
	default:
		return ""
	}
	if dropped[n.DataAtom] {
		return ""
	}
	if depth > maxDepth {
		return collapse(textOf(n))
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		t := strings.TrimSpace(oneLine(c.blocks(n, depth)))
		if t == "" {
			return ""
		}
		return "\n\n" + strings.Repeat("#", level) + " " + t + "\n\n"
	case atom.Br:
		return "\n"
	case atom.Hr:
		return "\n\n---\n\n"
	case atom.A:
		return c.link(n, depth)
	case atom.Img:
		return c.image(n)
	case atom.Strong, atom.B:
		return wrap("**", c.blocks(n, depth))
	case atom.Em, atom.I:
		return wrap("*", c.blocks(n, depth))
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		return inlineCode(textOf(n))
	case atom.Pre:
		return codeBlock(n)
	case atom.Ul, atom.Ol:
		return "\n\n" + c.list(n, depth) + "\n\n"
	case atom.Li:
		return "\n\n" + c.blocks(n, depth) + "\n\n" // a stray li outside a list
	case atom.Blockquote:
		inner := strings.TrimSpace(tidy(c.blocks(n, depth)))
		if inner == "" {
			return ""
		}
		return "\n\n" + prefixLines(inner, "> ") + "\n\n"
	case atom.Table:
		return "\n\n" + c.table(n, depth) + "\n\n"
	}
	if blockTags[n.DataAtom] {
		return "\n\n" + c.blocks(n, depth) + "\n\n"
	}
	return c.blocks(n, depth)
}

func (c *converter) link(n *html.Node, depth int) string {
	text := strings.TrimSpace(oneLine(c.blocks(n, depth)))
	href := strings.TrimSpace(attr(n, "href"))
	u := c.resolve(href)
	switch {
	case text == "":
		return ""
	case u == "":
		return text
	}
	return "[" + escapeBrackets(text) + "](" + u + ")"
}

func (c *converter) image(n *html.Node) string {
	alt := strings.TrimSpace(oneLine(attr(n, "alt")))
	src := c.resolve(attr(n, "src"))
	if alt == "" || src == "" {
		return ""
	}
	return "![" + escapeBrackets(alt) + "](" + src + ")"
}

// resolve makes a link absolute; script and data links are dropped.
func (c *converter) resolve(href string) string {
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	switch u.Scheme {
	case "http", "https", "mailto", "ftp":
	default:
		return ""
	}
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(u.String())
}

// list renders ul/ol items, nested lists indented under their item.
func (c *converter) list(n *html.Node, depth int) string {
	var b strings.Builder
	num := 1
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			continue
		}
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		body := strings.TrimSpace(tidy(c.blocks(li, depth+1)))
		lines := strings.Split(body, "\n")
		b.WriteString(marker + lines[0] + "\n")
		pad := strings.Repeat(" ", len(marker))
		for _, l := range lines[1:] {
			if strings.TrimSpace(l) == "" {
				continue
			}
			b.WriteString(pad + l + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// table renders rows as a Markdown table, the first row as its header.
func (c *converter) table(n *html.Node, depth int) string {
	var rows [][]string
	var walk func(*html.Node, int)
	walk = func(m *html.Node, d int) {
		for ch := m.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode || d > maxDepth {
				continue
			}
			switch ch.DataAtom {
			case atom.Tr:
				var row []string
				for cell := ch.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type == html.ElementNode && (cell.DataAtom == atom.Td || cell.DataAtom == atom.Th) {
						t := strings.TrimSpace(oneLine(tidy(c.blocks(cell, depth+d))))
						row = append(row, strings.ReplaceAll(t, "|", `\|`))
					}
				}
				if len(row) > 0 {
					rows = append(rows, row)
				}
			case atom.Table:
				// A nested table's text joins the cell it is in.
			default:
				walk(ch, d+1)
			}
		}
	}
	walk(n, 0)
	if len(rows) == 0 {
		return ""
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	var b strings.Builder
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// codeBlock renders pre as a fenced block, with the language of a
// "language-x" class, and a fence longer than any backtick run inside.
func codeBlock(n *html.Node) string {
	text := strings.Trim(textOf(n), "\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	lang := ""
	for _, m := range []*html.Node{n, find(n, atom.Code)} {
		if m == nil {
			continue
		}
		for _, cls := range strings.Fields(attr(m, "class")) {
			if l, ok := strings.CutPrefix(cls, "language-"); ok && lang == "" {
				lang = l
			}
		}
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return "\n\n" + fence + lang + "\n" + text + "\n" + fence + "\n\n"
}

func inlineCode(s string) string {
	s = oneLine(s)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

func wrap(mark, s string) string {
	t := strings.TrimSpace(oneLine(s))
	if t == "" {
		return s
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	trail := s[len(strings.TrimRight(s, " ")):]
	return lead + mark + t + mark + trail
}

// textOf is the text inside n, as written (for pre and code), without
// the dropped elements; iterative, so any depth is fine.
func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case m.Type == html.TextNode:
			b.WriteString(m.Data)
			continue
		case m.Type == html.ElementNode && m != n && dropped[m.DataAtom]:
			continue
		case m.Type == html.ElementNode && m.DataAtom == atom.Br:
			b.WriteString("\n")
		}
		for ch := m.LastChild; ch != nil; ch = ch.PrevSibling {
			stack = append(stack, ch)
		}
	}
	return b.String()
}

// find returns the first element a under n (breadth of the whole tree,
// iteratively), or nil.
func find(n *html.Node, a atom.Atom) *html.Node {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if m.Type == html.ElementNode && m.DataAtom == a {
			return m
		}
		for ch := m.LastChild; ch != nil; ch = ch.PrevSibling {
			stack = append(stack, ch)
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

var spaces = regexp.MustCompile(`[ \t\r\n\f\v]+`)

// collapse folds runs of whitespace into one space, as a browser does.
func collapse(s string) string { return spaces.ReplaceAllString(s, " ") }

func oneLine(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

func escapeBrackets(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}

func prefixLines(s, p string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(p+l, " ")
	}
	return strings.Join(lines, "\n")
}

var blankRuns = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+\n`)

// tidy trims each line's trailing spaces and leading spaces outside code
// blocks, and folds runs of blank lines into one.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence == "" && strings.HasPrefix(t, "```") {
			fence = strings.TrimRight(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+_.#")
			lines[i] = t
			continue
		}
		if fence != "" {
			if t == fence {
				fence = ""
				lines[i] = t
			}
			continue // code keeps its indentation
		}
		if strings.HasPrefix(l, " ") && (listItem(t) || strings.HasPrefix(strings.TrimLeft(l, " "), "- ")) && len(l)-len(strings.TrimLeft(l, " ")) >= 2 {
			lines[i] = strings.TrimRight(l, " \t") // a nested list's indentation
			continue
		}
		lines[i] = t
	}
	out := strings.Join(lines, "\n")
	out = blankRuns.ReplaceAllString(out, "\n\n")
	return strings.TrimSpace(out)
}

var orderedItem = regexp.MustCompile(`^\d+\. `)

func listItem(t string) bool { return strings.HasPrefix(t, "- ") || orderedItem.MatchString(t) }

// plainText is the text of an HTML document the parser refused, read
// token by token: text outside the dropped elements, a line break after
// every block element.
func plainText(data []byte) string {
	z := html.NewTokenizer(bytes.NewReader(data))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.WriteString(collapse(string(z.Text())))
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if dropped[a] && a != atom.Head && a != atom.Nav {
				skip++
			} else if blockTags[a] || a == atom.Li || a == atom.Br || a == atom.Tr {
				b.WriteString("\n")
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if a := atom.Lookup(name); dropped[a] && a != atom.Head && a != atom.Nav && skip > 0 {
				skip--
			}
		}
	}
}
