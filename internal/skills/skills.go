// Package skills finds skills: folders holding a SKILL.md whose front
// matter names the skill and says when to use it. Only the names and
// descriptions go into the system prompt; the body and the skill's other
// files are read when the model asks for them (the skill tool), so a
// person can keep many skills without filling the context window.
//
// Skills are looked for in the workspace's .olly/skills/ and
// .claude/skills/ (for Claude Code's), and in olly's configuration
// directory's skills/ (~/.config/olly/skills/). A project skill wins over
// a user skill of the same name. Project skills are workspace content:
// a folder or file whose link leads out of the workspace is skipped, and
// every read is confined to the skill's folder and size-capped.
package skills

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/olly-agent/olly/internal/frontmatter"
	"github.com/olly-agent/olly/internal/workspace"
)

// Limits.
const (
	// MaxSkills bounds the skills listed (the prompt lists them all).
	MaxSkills = 100
	// MaxDescription bounds a description in the prompt, in bytes.
	MaxDescription = 1024
	// MaxNameLen bounds a skill's name.
	MaxNameLen = 64
	// MaxFileBytes bounds SKILL.md and any file read from a skill.
	MaxFileBytes = 100_000
)

// File is the name of a skill's main file.
const File = "SKILL.md"

// Skill is one skill found.
type Skill struct {
	Name        string
	Description string
	// Dir is the skill's folder, its real path (links resolved).
	Dir string
	// Source says where it was found: "project" (.olly/skills),
	// "claude" (.claude/skills) or "user" (~/.config/olly/skills).
	Source string
}

// Problem is a skill folder that could not be used, and why.
type Problem struct {
	Path, Reason string
}

// place is one directory searched, in precedence order.
type place struct {
	dir, source string
	inWorkspace bool
}

// Discover finds the skills of ws (nil: the user's only) and userDir
// (olly's configuration directory; "": none), sorted by name. The first
// place holding a name wins: .olly/skills, then .claude/skills, then the
// user's.
func Discover(ws *workspace.Workspace, userDir string) ([]Skill, []Problem) {
	var places []place
	if ws != nil {
		root := ws.Primary().Path
		places = append(places, place{filepath.Join(root, ".olly", "skills"), "project", true},
			place{filepath.Join(root, ".claude", "skills"), "claude", true})
	}
	if userDir != "" {
		places = append(places, place{filepath.Join(userDir, "skills"), "user", false})
	}
	seen := map[string]bool{}
	var out []Skill
	var problems []Problem
	for _, p := range places {
		found, probs := scan(ws, p)
		problems = append(problems, probs...)
		for _, s := range found {
			if seen[s.Name] {
				continue // a place searched earlier has it
			}
			if len(out) == MaxSkills {
				problems = append(problems, Problem{Path: s.Dir, Reason: fmt.Sprintf("more than %d skills: left out", MaxSkills)})
				continue
			}
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

// scan reads the skills of one place: each subfolder holding a SKILL.md
// (one level, not recursive).
func scan(ws *workspace.Workspace, p place) ([]Skill, []Problem) {
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return nil, nil // no such place: nothing to say
	}
	var out []Skill
	var problems []Problem
	for _, e := range entries {
		dir := filepath.Join(p.dir, e.Name())
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			continue
		}
		if p.inWorkspace && (ws == nil || !ws.Contains(real)) {
			problems = append(problems, Problem{Path: dir, Reason: "a link out of the workspace: skipped"})
			continue
		}
		if info, err := os.Stat(real); err != nil || !info.IsDir() {
			continue
		}
		s, err := load(ws, real, p)
		if err != nil {
			if !os.IsNotExist(err) {
				problems = append(problems, Problem{Path: filepath.Join(dir, File), Reason: err.Error()})
			}
			continue
		}
		out = append(out, s)
	}
	return out, problems
}

// load reads a skill's front matter.
func load(ws *workspace.Workspace, dir string, p place) (Skill, error) {
	data, err := readConfined(dir, File, p.inWorkspace, ws)
	if err != nil {
		return Skill{}, err
	}
	fields, _, err := frontmatter.Parse(data)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: strings.TrimSpace(fields["name"]), Description: oneLine(fields["description"]), Dir: dir, Source: p.source}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if !ValidName(s.Name) {
		return Skill{}, fmt.Errorf("name %q: use at most %d letters, digits, - and _", s.Name, MaxNameLen)
	}
	if s.Description == "" {
		return Skill{}, fmt.Errorf("no description in the front matter: the model picks skills by their description")
	}
	if len(s.Description) > MaxDescription {
		s.Description = strings.ToValidUTF8(s.Description[:MaxDescription], "") + "…"
	}
	return s, nil
}

// ValidName reports whether name can name a skill.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen {
		return false
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return !strings.HasPrefix(name, ".")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Find returns the skill called name among skills.
func Find(skills []Skill, name string) (Skill, bool) {
	for _, s := range skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Body returns a skill's instructions: SKILL.md without its front matter.
func (s Skill) Body() (string, error) {
	data, err := readConfined(s.Dir, File, false, nil)
	if err != nil {
		return "", err
	}
	_, body, err := frontmatter.Parse(data)
	return strings.TrimSpace(body), err
}

// ReadFile reads a file of the skill's folder (a path relative to it). A
// path leading out of the folder — "..", an absolute path, a link — is
// refused.
func (s Skill) ReadFile(rel string) (string, error) {
	data, err := readConfined(s.Dir, rel, false, nil)
	if err != nil {
		return "", err
	}
	if strings.IndexByte(string(data), 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file", rel)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}

// Files lists the skill's other files (relative, slash-separated), at most
// limit of them.
func (s Skill) Files(limit int) []string {
	var out []string
	_ = filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= limit {
			return filepath.SkipAll
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != s.Dir {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(s.Dir, p)
		if rel != File {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// readConfined reads rel inside dir, refusing any path whose real
// location is not inside dir (and, for workspace content, not inside the
// workspace), and more than MaxFileBytes.
func readConfined(dir, rel string, inWorkspace bool, ws *workspace.Workspace) ([]byte, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("give a path relative to the skill's folder, not %q", rel)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.Rel(dir, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return nil, fmt.Errorf("%s is outside the skill's folder", rel)
	}
	if inWorkspace && (ws == nil || !ws.Contains(real)) {
		return nil, fmt.Errorf("%s leads out of the workspace", rel)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes; at most %d are read", rel, info.Size(), MaxFileBytes)
	}
	return io.ReadAll(io.LimitReader(f, MaxFileBytes))
}

// Render is the system prompt's list of skills: names and descriptions
// only. "" when there are none.
func Render(list []Skill) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("SKILLS\nSkills are instructions for particular tasks, kept out of this prompt until needed. When a task matches a skill's description, call the skill tool with its name before you start, and follow what it says; read the skill's other files through the skill tool too (name and file). Available skills:\n")
	for _, s := range list {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}
