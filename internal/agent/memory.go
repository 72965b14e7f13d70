package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Session memory (seed 000, "AgentSessionMemory"): categorised notes the
// agent keeps across iterations and turns — files read and written, errors
// met, the person's stated preferences, functions explored — taken from
// the tool calls and results deterministically (memory_extract.go). They
// reach the model as a <session_memory> block at the end of the system
// prompt, and are stored on the session row (session_memory) after every
// turn, so a resumed session remembers them.

// memoryVersion is the stored format's version.
const memoryVersion = 1

// taskPreview bounds the task quoted in the memory block (runes): the full
// prompt is in the conversation; quoting it again in every request is the
// redundancy the seed removed ("Session Memory Deduplication").
const taskPreview = 120

// Category limits: the block must stay small (it is in every request), so
// each list keeps its most recent entries.
const (
	maxFiles     = 40
	maxErrors    = 10
	maxPrefs     = 10
	maxFunctions = 40
	maxNotes     = 20
	maxEntry     = 200 // runes per entry
)

// sessionMemory is the notes. The zero value is empty and usable.
type sessionMemory struct {
	Version int `json:"version"`
	// Task is the prompt of the turn the notes were last updated in.
	Task         string   `json:"task,omitempty"`
	FilesRead    []string `json:"filesRead,omitempty"`
	FilesWritten []string `json:"filesWritten,omitempty"`
	Errors       []string `json:"errors,omitempty"`
	Preferences  []string `json:"preferences,omitempty"`
	Functions    []string `json:"functions,omitempty"`
	// Notes are other entries (addEntry with a category of its own).
	Notes []string `json:"notes,omitempty"`
}

// Memory categories (addEntry).
const (
	memFileRead   = "file_read"
	memFileWrite  = "file_written"
	memError      = "error"
	memPreference = "preference"
	memFunction   = "function"
	memNote       = "note"
)

// addEntry records content under category: trimmed to one line of at
// most maxEntry runes, deduplicated (a repeated entry moves to the end, the
// most recent place), the oldest dropped beyond the category's limit.
func (m *sessionMemory) addEntry(category, content string) {
	content = oneLine(content, maxEntry)
	if content == "" {
		return
	}
	list, limit := m.list(category)
	*list = appendRecent(*list, content, limit)
}

func (m *sessionMemory) list(category string) (*[]string, int) {
	switch category {
	case memFileRead:
		return &m.FilesRead, maxFiles
	case memFileWrite:
		return &m.FilesWritten, maxFiles
	case memError:
		return &m.Errors, maxErrors
	case memPreference:
		return &m.Preferences, maxPrefs
	case memFunction:
		return &m.Functions, maxFunctions
	}
	return &m.Notes, maxNotes
}

func appendRecent(list []string, s string, limit int) []string {
	for i, x := range list {
		if x == s {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	list = append(list, s)
	if len(list) > limit {
		list = append(list[:0], list[len(list)-limit:]...)
	}
	return list
}

// oneLine collapses s to one line of at most n runes ("…" marks a cut).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// maxTask bounds the stored task (runes); only its preview is shown.
const maxTask = 1000

// setTask records the prompt of the turn now running.
func (m *sessionMemory) setTask(prompt string) {
	m.Task = oneLine(prompt, maxTask)
}

// empty reports whether there are no notes (the task aside).
func (m *sessionMemory) empty() bool {
	return len(m.FilesRead)+len(m.FilesWritten)+len(m.Errors)+len(m.Preferences)+len(m.Functions)+len(m.Notes) == 0
}

// compactSummary is the one-line summary: "2 files read, 1 file written,
// 3 errors encountered, 5 functions explored".
func (m *sessionMemory) compactSummary() string {
	var parts []string
	add := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, verb(n, one, many)))
		}
	}
	add(len(m.FilesRead), "file read", "files read")
	add(len(m.FilesWritten), "file written", "files written")
	add(len(m.Errors), "error encountered", "errors encountered")
	add(len(m.Preferences), "preference noted", "preferences noted")
	add(len(m.Functions), "function explored", "functions explored")
	add(len(m.Notes), "note", "notes")
	if len(parts) == 0 {
		return "no notes yet"
	}
	return strings.Join(parts, ", ")
}

// block renders the notes for the system prompt: the task preview (120
// characters, not the full task), then the notes by category and the
// one-line summary. It is "" when there is nothing to say.
func (m *sessionMemory) block() string {
	if m.Task == "" && m.empty() {
		return ""
	}
	var b strings.Builder
	b.WriteString("<session_memory>\n")
	if m.Task != "" {
		b.WriteString("## Task Reference\n")
		b.WriteString(oneLine(m.Task, taskPreview))
		b.WriteString("\n(The full request is in the conversation.)\n")
	}
	if !m.empty() {
		b.WriteString("## Notes\n")
		inline := func(title string, list []string) {
			if len(list) > 0 {
				b.WriteString(title + ": " + strings.Join(list, ", ") + "\n")
			}
		}
		bullets := func(title string, list []string) {
			if len(list) > 0 {
				b.WriteString(title + ":\n")
				for _, x := range list {
					b.WriteString("- " + x + "\n")
				}
			}
		}
		inline("Files read", m.FilesRead)
		inline("Files written", m.FilesWritten)
		bullets("Errors encountered", m.Errors)
		bullets("User preferences", m.Preferences)
		inline("Functions explored", m.Functions)
		bullets("Notes", m.Notes)
		b.WriteString("Summary: " + m.compactSummary() + "\n")
	}
	b.WriteString("</session_memory>")
	return b.String()
}

// merge adds other's notes (not its task) to m, in order.
func (m *sessionMemory) merge(other *sessionMemory) {
	for _, c := range other.categories() {
		for _, x := range c.list {
			m.addEntry(c.cat, x)
		}
	}
}

// categories lists the notes by category.
func (m *sessionMemory) categories() []memCategory {
	return []memCategory{
		{memFileRead, m.FilesRead}, {memFileWrite, m.FilesWritten}, {memError, m.Errors},
		{memPreference, m.Preferences}, {memFunction, m.Functions}, {memNote, m.Notes},
	}
}

type memCategory struct {
	cat  string
	list []string
}

// toJSON serialises the notes for the session row.
func (m *sessionMemory) toJSON() json.RawMessage {
	m.Version = memoryVersion
	b, err := json.Marshal(m)
	if err != nil { // strings and slices only: cannot fail
		return nil
	}
	return b
}

// memoryFromJSON restores stored notes. Stored data is not trusted: every
// entry goes through addEntry again (one line, bounded, deduplicated,
// limited), so a hand-edited or corrupted row cannot bloat the prompt.
// Invalid JSON is an error; the caller logs it and starts empty.
func memoryFromJSON(raw json.RawMessage) (*sessionMemory, error) {
	m := &sessionMemory{Version: memoryVersion}
	if len(raw) == 0 || string(raw) == "null" {
		return m, nil
	}
	var in sessionMemory
	if err := json.Unmarshal(raw, &in); err != nil {
		return m, fmt.Errorf("session memory is not valid JSON (%v)", err)
	}
	if in.Version > memoryVersion {
		return m, errors.New("session memory was written by a newer olly")
	}
	m.setTask(in.Task)
	m.merge(&in)
	return m, nil
}
