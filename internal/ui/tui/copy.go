package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/timeline"
)

// maxCopyRows bounds the copy picker's rows.
const maxCopyRows = 60

// answers are the text of the assistant's answers, newest first.
func (m *Model) answers() []string {
	var out []string
	items := m.tb.Timeline().Items
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.Kind != timeline.KindAssistant {
			continue
		}
		for j := len(it.Blocks) - 1; j >= 0; j-- {
			b := it.Blocks[j]
			if (b.Kind == timeline.BlockFinal || b.Kind == timeline.BlockText) && strings.TrimSpace(b.Text) != "" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// copyAnswer copies the last answer to the clipboard with OSC 52 (works
// over ssh; the terminal must allow it).
func (m *Model) copyAnswer() tea.Cmd {
	as := m.answers()
	if len(as) == 0 {
		m.notice = "no answer to copy yet"
		return nil
	}
	m.notice = fmt.Sprintf("copied the last answer (%d characters)", len(as[0]))
	return tea.SetClipboard(as[0])
}

// openCopyPicker lists the code blocks of the answers, newest first, after
// the last answer as a whole; Enter copies the one picked (OSC 52).
func (m *Model) openCopyPicker() tea.Cmd {
	p := &picker{kind: pickCopy, title: "Copy", help: "Enter copies to the clipboard (OSC 52)"}
	as := m.answers()
	if len(as) > 0 {
		p.add("the last answer", fmt.Sprintf("%d lines", lineCount(as[0])), as[0])
	}
	for n, a := range as {
		for _, cb := range codeBlocks(a) {
			if len(p.texts) >= maxCopyRows {
				break
			}
			where := "last answer"
			if n > 0 {
				where = fmt.Sprintf("%d answers back", n)
			}
			detail := fmt.Sprintf("%s · %d lines · %s", firstNonEmpty(cb.lang, "code"), lineCount(cb.code), where)
			p.add(firstLine(cb.code), detail, cb.code)
		}
	}
	if len(p.texts) == 0 {
		m.notice = "no answer to copy yet"
		return nil
	}
	m.picker = p
	p.filter()
	return nil
}

func (p *picker) add(label, detail, text string) {
	p.entries = append(p.entries, pickEntry{value: strconv.Itoa(len(p.texts)), label: label, detail: detail})
	p.texts = append(p.texts, text)
}

// copyPicked copies the copy picker's row.
func (m *Model) copyPicked(p *picker, value string) tea.Cmd {
	i, err := strconv.Atoi(value)
	if err != nil || i < 0 || i >= len(p.texts) {
		return nil
	}
	m.notice = fmt.Sprintf("copied %s (%d characters)", p.entries[i].label, len(p.texts[i]))
	return tea.SetClipboard(p.texts[i])
}

// codeBlock is a fenced code block of an answer.
type codeBlock struct{ lang, code string }

// codeBlocks finds the fenced code blocks (``` or ~~~) of markdown text,
// in order. An unclosed fence runs to the end, as markdown reads it.
func codeBlocks(text string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	var fence string
	var body []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " ")
		indent := len(line) - len(t)
		if cur == nil {
			if f := fenceOf(t); f != "" && indent <= 3 {
				fence = f
				cur = &codeBlock{lang: strings.Fields(strings.TrimLeft(t[len(f):], "`~") + " x")[0]}
				if cur.lang == "x" {
					cur.lang = ""
				}
				body = body[:0]
			}
			continue
		}
		if indent <= 3 && strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
			cur.code = strings.Join(body, "\n")
			out = append(out, *cur)
			cur = nil
			continue
		}
		body = append(body, line)
	}
	if cur != nil && len(body) > 0 {
		cur.code = strings.Join(body, "\n")
		out = append(out, *cur)
	}
	return out
}

// fenceOf is the fence a line opens with (``` or ~~~, or longer), "".
func fenceOf(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			if c == "`" && strings.Contains(t[n:], "`") {
				return "" // a backtick fence's info string has no backtick
			}
			return t[:n]
		}
	}
	return ""
}

func lineCount(s string) int { return strings.Count(strings.TrimRight(s, "\n"), "\n") + 1 }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
