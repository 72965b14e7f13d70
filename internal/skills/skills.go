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
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/olly-agent/olly/internal/confined"
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

// Discover finds the skills of ws (nil: the user's only) and userDir
// (olly's configuration directory; "": none), sorted by name. The first
// place holding a name wins: .olly/skills, then .claude/skills, then the
// user's (confined.Places).
func Discover(ws *workspace.Workspace, userDir string) ([]Skill, []Problem) {
	seen := map[string]bool{}
	var out []Skill
	var problems []Problem
	for _, p := range confined.Places(ws, userDir, "skills") {
		found, probs := scan(p)
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
func scan(p confined.Place) ([]Skill, []Problem) {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return nil, nil // no such place: nothing to say
	}
	var out []Skill
	var problems []Problem
	for _, e := range entries {
		dir := filepath.Join(p.Dir, e.Name())
		real, err := confined.Resolve(dir, p.Scope)
		if errors.Is(err, confined.ErrOutsideWorkspace) {
			problems = append(problems, Problem{Path: dir, Reason: "a link out of the workspace: skipped"})
			continue
		}
		if err != nil {
			continue
		}
		if info, err := os.Stat(real); err != nil || !info.IsDir() {
			continue
		}
		s, err := load(real, p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, Problem{Path: filepath.Join(dir, File), Reason: err.Error()})
			}
			continue
		}
		out = append(out, s)
	}
	return out, problems
}

// load reads a skill's front matter.
func load(dir string, p confined.Place) (Skill, error) {
	scope := p.Scope
	scope.Dir = dir
	data, err := confined.ReadFile(filepath.Join(dir, File), scope, MaxFileBytes)
	if err != nil {
		return Skill{}, err
	}
	fields, _, err := frontmatter.Parse(data)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: strings.TrimSpace(fields["name"]), Description: oneLine(fields["description"]), Dir: dir, Source: p.Source}
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
	data, err := confined.ReadFile(filepath.Join(s.Dir, File), confined.Scope{Dir: s.Dir}, MaxFileBytes)
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
	p, err := confined.Join(s.Dir, rel)
	if err != nil {
		return "", err
	}
	data, err := confined.ReadFile(p, confined.Scope{Dir: s.Dir}, MaxFileBytes)
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
