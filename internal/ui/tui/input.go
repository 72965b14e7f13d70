package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/sahilm/fuzzy"

	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// maxInputLines is the most lines the editor grows to.
const maxInputLines = 8

// editor is the prompt editor: a multi-line text area with the prompt
// history, and completion of @files, /commands and history search.
type editor struct {
	m  *Model
	ta textarea.Model
	// pending is the task from the command line, sent once the history
	// is loaded.
	pending string

	// history is the stored prompt history, newest first, loaded on the
	// first ↑; histPos is the entry shown (-1: the draft).
	history []string
	loaded  bool
	histPos int
	draft   string

	comp *completion
	// files is the workspace's file list (nil until loaded); it is asked
	// for again each time an @ completion opens, from the shared cache
	// (workspace.FileIndex), so files made meanwhile are offered.
	files *workspace.FileList

	view    []string
	viewKey editorKey
}

func newEditor(m *Model) *editor {
	ta := textarea.New()
	ta.Prompt = "› "
	ta.Placeholder = "Ask olly to do something…  (? for keys)"
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputLines
	ta.CharLimit = 0
	// Enter sends; a newline is alt+enter, shift+enter or ctrl+j.
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "shift+enter", "ctrl+j"))
	// ctrl+f opens the review panel, ctrl+t toggles the mouse.
	ta.KeyMap.CharacterForward = key.NewBinding(key.WithKeys("right"))
	ta.KeyMap.TransposeCharacterBackward = key.NewBinding(key.WithKeys())
	st := textarea.DefaultStyles(true)
	st.Cursor.Blink = false // a blinking cursor would make every frame differ
	st.Focused.CursorLine = lipgloss.NewStyle()
	st.Focused.Base = lipgloss.NewStyle()
	st.Blurred.Base = lipgloss.NewStyle()
	ta.SetStyles(st)
	return &editor{m: m, ta: ta, histPos: -1}
}

func (e *editor) focus() tea.Cmd { return e.ta.Focus() }

func (e *editor) setWidth(w int) { e.ta.SetWidth(max(10, w)) }

// lines renders the editor with a rule above it, reusing the last
// rendering while neither the text, the cursor nor the size changed (the
// screen is redrawn for every streamed token).
func (e *editor) lines(m *Model) []string {
	key := editorKey{e.ta.Value(), e.ta.Line(), e.ta.Column(), m.width, m.dark, e.ta.Focused()}
	if key == e.viewKey && e.view != nil {
		return e.view
	}
	rule := m.rnd.st.muted.Render(strings.Repeat("─", max(1, m.width)))
	e.view, e.viewKey = append([]string{rule}, strings.Split(e.ta.View(), "\n")...), key
	return e.view
}

// editorKey is what the editor's rendering depends on.
type editorKey struct {
	value         string
	line, col, w  int
	dark, focused bool
}

func (e *editor) value() string { return e.ta.Value() }

func (e *editor) reset() {
	e.ta.Reset()
	e.histPos, e.draft, e.comp = -1, "", nil
}

// update passes a message to the text area, then refreshes completion.
func (e *editor) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return tea.Batch(cmd, e.refreshCompletion())
}

// historyUp shows the previous prompt; it reports whether it did.
func (e *editor) historyUp() (tea.Cmd, bool) {
	if e.ta.Line() != 0 {
		return nil, false
	}
	if !e.loaded {
		e.loaded = true
		return e.loadHistory(""), true
	}
	if e.histPos+1 >= len(e.history) {
		return nil, true
	}
	if e.histPos == -1 {
		e.draft = e.ta.Value()
	}
	e.histPos++
	e.ta.SetValue(e.history[e.histPos])
	return nil, true
}

// historyDown shows the next prompt, then the draft.
func (e *editor) historyDown() bool {
	if e.histPos < 0 || e.ta.Line() != e.ta.LineCount()-1 {
		return false
	}
	e.histPos--
	if e.histPos < 0 {
		e.ta.SetValue(e.draft)
	} else {
		e.ta.SetValue(e.history[e.histPos])
	}
	return true
}

// historyRecallMsg carries prompts read from the store.
type historyRecallMsg struct {
	query   string
	prompts []store.Prompt
	err     error
}

func (e *editor) loadHistory(query string) tea.Cmd {
	m := e.m
	if m.deps.Sessions == nil {
		return nil
	}
	ctx, s, dir := m.ctx, m.deps.Sessions, m.info.Workspace
	return func() tea.Msg {
		ps, err := s.Prompts(ctx, dir, query, 200)
		return historyRecallMsg{query: query, prompts: ps, err: err}
	}
}

// recall takes the prompts read: the ↑ history, or ctrl+r's matches.
func (e *editor) recall(msg historyRecallMsg) {
	if msg.err != nil {
		e.m.notice = "prompt history: " + msg.err.Error()
		return
	}
	texts := make([]string, 0, len(msg.prompts))
	for _, p := range msg.prompts {
		texts = append(texts, p.Text)
	}
	if e.comp != nil && e.comp.kind == compHistory {
		e.comp.all = texts
		e.comp.filter(e.ta.Value())
		return
	}
	e.history = texts
	if len(texts) > 0 {
		e.draft = e.ta.Value()
		e.histPos = 0
		e.ta.SetValue(texts[0])
	}
}

// Completion kinds.
const (
	compFile = iota
	compCommand
	compHistory
)

// maxShown bounds a completion list.
const maxShown = 50

// completion is the list under the cursor: @files, /commands, or history.
type completion struct {
	kind  int
	start int // byte offset of the token in the input
	// files holds the paths of an @ completion, matched as every
	// frontend matches them (workspace.FileList.Match); all the
	// entries of the others.
	files *workspace.FileList
	all   []string
	descs map[string]string
	shown []string
	sel   int
}

func (c *completion) filter(q string) {
	c.shown = c.shown[:0]
	if c.kind == compFile {
		if c.files != nil {
			c.shown = append(c.shown, c.files.Match(q, maxShown)...)
		}
	} else if q == "" {
		c.shown = append(c.shown, c.all...)
	} else {
		for _, mt := range fuzzy.Find(q, c.all) {
			c.shown = append(c.shown, mt.Str)
		}
	}
	if len(c.shown) > maxShown {
		c.shown = c.shown[:maxShown]
	}
	if c.sel >= len(c.shown) {
		c.sel = 0
	}
}

// refreshCompletion opens, filters or closes the list for the token the
// cursor is in: "@path" anywhere, "/command" at the start of the input.
func (e *editor) refreshCompletion() tea.Cmd {
	if e.comp != nil && e.comp.kind == compHistory {
		e.comp.filter(e.ta.Value())
		return nil
	}
	val := e.ta.Value()
	if e.ta.LineCount() == 1 && strings.HasPrefix(val, "/") && !strings.ContainsAny(val, " \n") {
		c := e.comp
		if c == nil || c.kind != compCommand {
			c = e.m.commandCompletion()
		}
		c.filter(val[1:])
		e.comp = c
		if len(c.shown) == 0 {
			e.comp = nil
		}
		return nil
	}
	line := val
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	at := strings.LastIndexByte(line, '@')
	if at < 0 || strings.ContainsAny(line[at:], " \t") || (at > 0 && line[at-1] != ' ') || e.ta.Line() != e.ta.LineCount()-1 {
		e.comp = nil
		return nil
	}
	c := e.comp
	var load tea.Cmd
	if c == nil || c.kind != compFile {
		c = &completion{kind: compFile}
		load = e.loadFiles()
	}
	c.start = len(val) - len(line) + at
	c.files = e.files
	c.filter(line[at+1:])
	e.comp = c
	return load
}

// filesMsg carries the workspace's files.
type filesMsg struct{ files *workspace.FileList }

func (e *editor) loadFiles() tea.Cmd {
	m := e.m
	if m.deps.Files == nil {
		return nil
	}
	ctx, files := m.ctx, m.deps.Files
	return func() tea.Msg {
		fs, err := files(ctx)
		if err != nil {
			return errMsg{err}
		}
		return filesMsg{fs}
	}
}

// accept puts the selected completion into the input.
func (e *editor) accept() {
	c := e.comp
	if c == nil || len(c.shown) == 0 {
		e.comp = nil
		return
	}
	pick := c.shown[c.sel]
	val := e.ta.Value()
	switch c.kind {
	case compCommand:
		e.ta.SetValue("/" + pick + " ")
	case compHistory:
		e.ta.SetValue(pick)
	case compFile:
		e.ta.SetValue(val[:c.start] + "@" + pick + " ")
	}
	e.comp = nil
}

// searchHistory opens ctrl+r's search over the stored prompt history.
func (e *editor) searchHistory() tea.Cmd {
	e.comp = &completion{kind: compHistory}
	return e.loadHistory("")
}

// completionLines renders the open list (at most 8 rows).
func (e *editor) completionLines(m *Model) []string {
	c := e.comp
	if c == nil {
		return nil
	}
	st := m.rnd.st
	var out []string
	switch c.kind {
	case compHistory:
		out = append(out, st.muted.Render("history search (type to filter, ↑/↓, Enter or Tab picks, Esc closes)"))
	case compFile:
		if c.files == nil {
			return []string{st.muted.Render("  listing files…")}
		}
	}
	const rows = 8
	first := 0
	if c.sel >= rows {
		first = c.sel - rows + 1
	}
	for i := first; i < len(c.shown) && i < first+rows; i++ {
		s := oneLine(c.shown[i])
		if c.kind == compCommand {
			s = pad("/"+s, 18) + " " + st.muted.Render(c.descs[c.shown[i]])
		}
		s = "  " + s
		if i == c.sel {
			s = st.selected.Render(pad(s, m.width))
		}
		out = append(out, m.rnd.clipLine(s))
	}
	if len(c.shown) == 0 {
		out = append(out, st.muted.Render("  no match"))
	}
	return out
}

// completionKey handles keys while the list is open.
func (e *editor) completionKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c := e.comp
	if c == nil {
		return nil, false
	}
	switch msg.String() {
	case "up", "ctrl+p":
		if c.sel > 0 {
			c.sel--
		}
		return nil, true
	case "down", "ctrl+n":
		if c.sel+1 < len(c.shown) {
			c.sel++
		}
		return nil, true
	case "tab":
		e.accept()
		return nil, true
	case "enter":
		if c.kind == compCommand && len(c.shown) > 0 && strings.TrimPrefix(e.ta.Value(), "/") == c.shown[c.sel] {
			// The command is typed in full: Enter runs it.
			e.comp = nil
			return nil, false
		}
		e.accept()
		return nil, true
	case "esc":
		e.comp = nil
		return nil, true
	}
	return nil, false
}
