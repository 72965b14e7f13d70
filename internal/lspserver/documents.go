package lspserver

import (
	"fmt"
	"slices"

	"github.com/olly-agent/olly/internal/lsp"
)

// document is an open document as the editor last sent it.
type document struct {
	uri     lsp.DocumentURI
	lang    string
	version int32
	text    string
	mapper  *lsp.Mapper
	// touched orders documents by recent use (a counter, not a clock);
	// near is the byte offset where the person last worked, the centre
	// of the context this document lends to completions elsewhere.
	touched uint64
	near    int
}

func newDocument(item lsp.TextDocumentItem, seq uint64) *document {
	d := &document{uri: item.URI, lang: item.LanguageID, touched: seq}
	d.set(item.Version, item.Text)
	return d
}

func (d *document) set(version int32, text string) {
	d.version, d.text = version, text
	d.mapper = lsp.NewMapper([]byte(text))
}

// apply applies one didChange: the whole text, or a range edit from a
// client that sends them anyway. near moves to where the text changed.
func (d *document) apply(version int32, changes []contentChange) error {
	text := d.text
	for _, c := range changes {
		if c.Range == nil {
			d.near = firstDifference(text, c.Text)
			text = c.Text
			continue
		}
		m := lsp.NewMapper([]byte(text))
		start, err := m.Offset(c.Range.Start)
		if err != nil {
			return fmt.Errorf("change range start: %w", err)
		}
		end, err := m.Offset(c.Range.End)
		if err != nil {
			return fmt.Errorf("change range end: %w", err)
		}
		if end < start {
			return fmt.Errorf("change range ends before it starts")
		}
		text = text[:start] + c.Text + text[end:]
		d.near = start + len(c.Text)
	}
	d.set(version, text)
	return nil
}

// firstDifference is the byte offset where a and b first differ: with full
// sync, the place the person is typing.
func firstDifference(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// snapshot is what a completion reads of a document, copied under the
// server's lock so the request runs without it.
type snapshot struct {
	uri     lsp.DocumentURI
	lang    string
	version int32
	text    string
	offset  int
	pos     lsp.Position
}

// others returns the open documents other than uri, most recently used
// first.
func others(docs map[lsp.DocumentURI]*document, uri lsp.DocumentURI) []*document {
	var out []*document
	for u, d := range docs {
		if u != uri {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *document) int {
		switch {
		case a.touched > b.touched:
			return -1
		case a.touched < b.touched:
			return 1
		}
		return 0
	})
	return out
}
