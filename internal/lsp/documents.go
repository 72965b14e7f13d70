package lsp

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// document is a file olly has opened in a server. The text on disk is the
// truth: every use compares it with what the server was last told.
type document struct {
	path    string
	uri     DocumentURI
	lang    string
	text    []byte
	version int32
	// open is the server instance the document is open in; nil when
	// closed (after a restart it is opened again in the new one).
	open *client
	// sentSeq is the server's diagnostics sequence number when the last
	// open or change was sent: later publications know the new text.
	sentSeq   uint64
	changedAt time.Time
	used      time.Time
}

// docState is what a caller learns about a synced document.
type docState struct {
	path    string
	uri     DocumentURI
	text    []byte
	version int32
	sentSeq uint64
	// changed is set when this sync sent new text.
	changed   bool
	changedAt time.Time
}

// sync makes the server's view of path match the disk: didOpen if it is
// not open there, didChange (and didSave) if its text changed. saved sends
// didSave even for a fresh open, for a file just written: some servers
// (rust-analyzer) check only on save.
func (m *Manager) sync(c *client, srv Server, path string, saved bool) (docState, error) {
	text, err := m.readFile(path)
	m.docMu.Lock()
	defer m.docMu.Unlock()
	d := m.docs[path]
	if err != nil {
		if d != nil && errors.Is(err, fs.ErrNotExist) {
			m.closeDoc(d)
		}
		return docState{}, err
	}
	if d == nil {
		d = &document{path: path, uri: FileURI(path), lang: srv.Language}
		m.docs[path] = d
	}
	now := time.Now()
	d.used = now
	changed := false
	switch {
	case d.open != c || !c.alive():
		d.version++
		d.text, d.open, d.sentSeq, d.changedAt = text, c, c.diags.mark(), now
		err = c.notify("textDocument/didOpen", didOpenParams{TextDocument: TextDocumentItem{
			URI: d.uri, LanguageID: languageID(srv, path), Version: d.version, Text: string(text)}})
		changed = true
	case !bytes.Equal(d.text, text):
		d.version++
		d.text, d.sentSeq, d.changedAt = text, c.diags.mark(), now
		err = c.notify("textDocument/didChange", didChangeParams{
			TextDocument:   VersionedTextDocumentIdentifier{URI: d.uri, Version: d.version},
			ContentChanges: []contentChange{{Text: string(text)}}})
		changed, saved = true, true
	}
	if err == nil && changed && saved {
		p := didSaveParams{TextDocument: TextDocumentIdentifier{URI: d.uri}}
		if c.caps.saveIncludesText() {
			s := string(text)
			p.Text = &s
		}
		err = c.notify("textDocument/didSave", p)
	}
	if err != nil {
		d.open = nil
		return docState{}, err
	}
	if changed {
		c.lastChange.Store(now.UnixNano())
	}
	m.evict(c, d, now)
	return docState{path: path, uri: d.uri, text: d.text, version: d.version, sentSeq: d.sentSeq,
		changed: changed, changedAt: d.changedAt}, nil
}

// readFile reads a file to open, refusing what is too large to send.
func (m *Manager) readFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", m.display(path))
	}
	if info.Size() > m.opts.MaxFileBytes {
		return nil, fmt.Errorf("%s is %d KB, larger than the %d KB olly sends to a language server", m.display(path), info.Size()>>10, m.opts.MaxFileBytes>>10)
	}
	return os.ReadFile(path)
}

// evict closes documents of c idle longer than IdleClose, then the least
// recently used ones beyond MaxOpenDocuments; keep stays open. Called with
// docMu held.
func (m *Manager) evict(c *client, keep *document, now time.Time) {
	var open []*document
	for _, d := range m.docs {
		if d.open != c || d == keep {
			continue
		}
		if now.Sub(d.used) > m.opts.IdleClose {
			m.closeDoc(d)
			continue
		}
		open = append(open, d)
	}
	for len(open)+1 > m.opts.MaxOpenDocuments {
		oldest := 0
		for i, d := range open {
			if d.used.Before(open[oldest].used) {
				oldest = i
			}
		}
		m.closeDoc(open[oldest])
		open = append(open[:oldest], open[oldest+1:]...)
	}
}

// closeDoc sends didClose and forgets the document. Called with docMu
// held.
func (m *Manager) closeDoc(d *document) {
	if c := d.open; c != nil && c.alive() {
		_ = c.notify("textDocument/didClose", didCloseParams{TextDocument: TextDocumentIdentifier{URI: d.uri}})
		c.diags.forget(d.path)
	}
	delete(m.docs, d.path)
}

// reopen opens again, in a restarted server, the documents that were open
// in its predecessor, so diagnostics and queries pick up where they were.
func (m *Manager) reopen(c *client, srv Server) {
	m.docMu.Lock()
	var paths []string
	for _, d := range m.docs {
		if d.lang == srv.Language && d.open != c {
			paths = append(paths, d.path)
		}
	}
	m.docMu.Unlock()
	for _, p := range paths {
		if _, err := m.sync(c, srv, p, false); err != nil {
			c.log.Debug("could not reopen document after restart", "path", p, "err", err)
		}
	}
}
