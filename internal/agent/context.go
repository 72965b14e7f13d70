package agent

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/workspace"
)

// maxAttachRead bounds how much of a file is read to attach part of it.
const maxAttachRead = 16 << 20

// mention is an @path or @path:L10-L50 in a prompt.
type mention struct {
	// start and end are the byte span of the mention, '@' included.
	start, end int
	path       string
	// from and to are the 1-based inclusive line range; 0 means the whole
	// file.
	from, to int
	// explicit is set when the mention must name a file (it holds a / or
	// a dot, or a line range); a bare "@word" that names nothing is prose
	// (a handle, a decorator).
	explicit bool
}

// parseMentions finds the @path mentions of text: an '@' at the start or
// after a space or an opening bracket or quote, up to the next space, with
// trailing punctuation left to the sentence.
func parseMentions(text string) []mention {
	var out []mention
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !strings.ContainsRune(" \t\r\n([{\"'`", rune(text[i-1]))) {
			continue
		}
		j := i + 1
		for j < len(text) && !strings.ContainsRune(" \t\r\n", rune(text[j])) {
			j++
		}
		tok := strings.TrimRight(text[i+1:j], ".,;:!?)]}\"'`")
		if m, ok := parseMention(tok); ok {
			m.start, m.end = i, i+1+len(tok)
			out = append(out, m)
		}
		i = j - 1
	}
	return out
}

// parseMention reads "path" or "path:L10-L50" ("path:L10", "path:10-50").
func parseMention(tok string) (mention, bool) {
	m := mention{path: tok}
	if k := strings.LastIndex(tok, ":"); k > 0 {
		if from, to, ok := lineRange(tok[k+1:]); ok {
			m.path, m.from, m.to, m.explicit = tok[:k], from, to, true
		}
	}
	if m.path == "" || strings.HasPrefix(m.path, "@") {
		return mention{}, false
	}
	m.explicit = m.explicit || strings.ContainsAny(m.path, "/.")
	return m, true
}

// lineRange reads "L10-L50", "L10", "10-50" or "10".
func lineRange(s string) (from, to int, ok bool) {
	a, b, hasRange := strings.Cut(s, "-")
	from, ok = lineNumber(a)
	if !ok {
		return 0, 0, false
	}
	to = from
	if hasRange {
		if to, ok = lineNumber(b); !ok || to < from {
			return 0, 0, false
		}
	}
	return from, to, true
}

func lineNumber(s string) (int, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "L"), "l")
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// userMessage resolves the prompt's @path mentions and builds the user
// message: the attached code first, each under a label telling the model it
// already has it (seed pitfall #27), then the prompt as typed. A mention
// that cannot be attached (a missing file, a directory, a binary file, a
// path outside the workspace) does not stop the prompt: it is returned as a
// warning for the person, and the model is told what was not attached.
func (a attacher) userMessage(in session.PromptInput) (event.UserMessage, []string) {
	msg := event.UserMessage{Text: in.Text, Mode: in.Mode}
	var blocks, warnings []string
	seen := map[string]bool{}
	for _, m := range parseMentions(in.Text) {
		att, ok, err := a.attach(m)
		if err != nil {
			warnings = append(warnings, err.Error())
			blocks = append(blocks, "(Not attached — "+err.Error()+".)")
			continue
		}
		key := fmt.Sprintf("%s:%d-%d", att.Path, att.StartLine, att.EndLine)
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		msg.Attachments = append(msg.Attachments, att.Attachment)
		blocks = append(blocks, att.block)
	}
	atts, imgBlocks := promptImages(in)
	msg.Attachments = append(msg.Attachments, atts...)
	blocks = append(blocks, imgBlocks...)
	if len(blocks) > 0 {
		msg.Content = strings.Join(blocks, "\n\n") + "\n\n" + in.Text
	}
	return msg, warnings
}

// attacher turns a prompt's mentions and images into the user message's
// attachments: the attachments part of a run, which needs only the turn's
// workspace and the attachment cap.
type attacher struct {
	ws *workspace.Workspace
	// maxBytes is Config.MaxAttachmentBytes.
	maxBytes int
}

// attachment is a resolved mention with its block for the model.
type attachment struct {
	event.Attachment
	block string
}

// attach resolves one mention through the workspace (never outside it)
// and reads the file or the lines. ok is false for a bare @word that names
// no file.
func (a attacher) attach(m mention) (attachment, bool, error) {
	ws := a.ws
	if ws == nil {
		return attachment{}, false, fmt.Errorf("@%s: this session has no workspace to attach files from", m.path)
	}
	p, err := ws.Resolve(m.path)
	var nf *workspace.NotFoundError
	switch {
	case errors.As(err, &nf) && !m.explicit:
		return attachment{}, false, nil
	case err != nil:
		return attachment{}, false, fmt.Errorf("cannot attach @%s: %w", m.path, err)
	case p.IsDir():
		return attachment{}, false, fmt.Errorf("cannot attach @%s: it is a directory; attach files in it, or ask the agent to list it", m.path)
	case !p.Info.Mode().IsRegular():
		return attachment{}, false, fmt.Errorf("cannot attach @%s: it is not a regular file", m.path)
	}
	if isImagePath(p.Rel) {
		return attachImage(p.Rel, p.Abs, p.Info.Size())
	}
	data, err := workspace.ReadRegularNoFollow(p.Abs, maxAttachRead)
	if err != nil {
		return attachment{}, false, fmt.Errorf("cannot attach @%s: %w", m.path, err)
	}
	partial := p.Info.Size() > int64(len(data))
	if partial {
		// Whole lines only: the read may have stopped inside a character.
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return attachment{}, false, fmt.Errorf("cannot attach @%s: it is a binary file; only text files can be attached", m.path)
	}
	return a.render(p.Rel, string(data), partial, m)
}

// render cuts the mentioned lines and caps the size.
func (a attacher) render(rel, text string, partial bool, m mention) (attachment, bool, error) {
	att := attachment{Attachment: event.Attachment{Path: rel}}
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	label := "Contents of " + rel + " " + attachmentMarker
	body := text
	if m.from > 0 {
		if m.from > len(lines) {
			return att, false, fmt.Errorf("cannot attach @%s:L%d-L%d: %s has only %d %s", m.path, m.from, m.to, rel, len(lines), verb(len(lines), "line", "lines"))
		}
		to := min(m.to, len(lines))
		att.StartLine, att.EndLine = m.from, to
		body = strings.Join(lines[m.from-1:to], "")
		label = fmt.Sprintf("User's selected code from %s:L%d-L%d %s", rel, m.from, to, attachmentMarker)
	}
	note := ""
	if limit := a.maxBytes; len(body) > limit || (partial && m.from == 0) {
		cut := min(len(body), limit)
		if k := strings.LastIndexByte(body[:cut], '\n'); k > 0 {
			cut = k + 1
		}
		for cut > 0 && !utf8.RuneStart(body[cut-1]) {
			cut--
		}
		shown := strings.Count(body[:cut], "\n")
		note = fmt.Sprintf("\n(Only the first %d lines are attached: the file is larger than the %d-byte attachment limit. Read the rest with read_file if you need it.)", shown, limit)
		body = body[:cut]
	}
	att.Content = body
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	att.block = label + "\n" + fence + "\n" + strings.TrimRight(body, "\n") + "\n" + fence + note
	return att, true, nil
}
