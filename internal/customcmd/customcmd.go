// Package customcmd loads custom slash commands: Markdown files whose
// body is a prompt template, in the workspace's .olly/commands/ (and
// .claude/commands/, for Claude Code's) and in olly's configuration
// directory's commands/ (~/.config/olly/commands/). A file review.md is
// the command /review; its front matter may give a description, a mode
// and a model for the turn, and the hint shown for its arguments. Running
// it expands $ARGUMENTS and $1…$9 in the body into the prompt.
//
// Project command files are workspace content: a file whose link leads
// out of the workspace is skipped, and files are size-capped.
package customcmd

import (
	"errors"
	"fmt"
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
	MaxFileBytes = 32_000
	MaxCommands  = 200
)

// Sources, in precedence order: a project command wins over the user's of
// the same name, .olly over .claude.
const (
	SourceProject = confined.SourceProject
	SourceClaude  = confined.SourceClaude
	SourceUser    = confined.SourceUser
)

// Command is one custom command.
type Command struct {
	// Name is the file's name without .md, lower-cased.
	Name        string
	Description string
	// Mode and Model apply to the turn the command runs ("": the
	// session's).
	Mode, Model string
	// ArgumentHint describes the arguments ("<issue number>").
	ArgumentHint string
	// Body is the prompt template.
	Body string
	// Path is the file; Source where it was found.
	Path, Source string
}

// Problem is a command file that could not be used, and why.
type Problem struct {
	Path, Reason string
}

// Load finds the custom commands of ws (nil: the user's only) and of
// userDir ("": none), sorted by name; the first place holding a name
// wins.
func Load(ws *workspace.Workspace, userDir string) ([]Command, []Problem) {
	seen := map[string]bool{}
	var out []Command
	var problems []Problem
	for _, p := range confined.Places(ws, userDir, "commands") {
		entries, err := os.ReadDir(p.Dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(strings.ToLower(e.Name()), ".md") {
				continue
			}
			path := filepath.Join(p.Dir, e.Name())
			c, err := loadFile(path, p.Scope)
			switch {
			case err != nil:
				problems = append(problems, Problem{Path: path, Reason: reason(err)})
				continue
			case seen[c.Name]:
				continue
			case len(out) == MaxCommands:
				problems = append(problems, Problem{Path: path, Reason: fmt.Sprintf("more than %d commands: left out", MaxCommands)})
				continue
			}
			c.Source = p.Source
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

// reason says why a file was not used, without its path (the Problem has
// it).
func reason(err error) string {
	for _, e := range []error{confined.ErrOutsideWorkspace, confined.ErrNotRegular} {
		if errors.Is(err, e) {
			return e.Error() + ": skipped"
		}
	}
	if errors.Is(err, confined.ErrTooLarge) {
		return fmt.Sprintf("a command file may have at most %d bytes: skipped", MaxFileBytes)
	}
	return err.Error()
}

// loadFile reads one command file, which must stay in scope.
func loadFile(path string, scope confined.Scope) (Command, error) {
	name := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if !ValidName(name) {
		return Command{}, fmt.Errorf("the file name makes the command /%s: use letters, digits, - and _ only", name)
	}
	data, err := confined.ReadFile(path, scope, MaxFileBytes)
	if err != nil {
		return Command{}, err
	}
	fields, body, err := frontmatter.Parse(data)
	if err != nil {
		return Command{}, err
	}
	c := Command{Name: name, Description: oneLine(fields["description"]), Mode: strings.TrimSpace(fields["mode"]),
		Model: strings.TrimSpace(fields["model"]), ArgumentHint: oneLine(firstNonEmpty(fields["argument-hint"], fields["argumentHint"])),
		Body: strings.TrimSpace(body), Path: path}
	if c.Body == "" {
		return Command{}, fmt.Errorf("the body is empty: write the prompt the command sends")
	}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return c, nil
}

// ValidName reports whether name can be a command's name.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Expand fills the body with args: $ARGUMENTS is all of them, $1…$9 the
// words (quotes group words: "a b" is one). A body that uses neither gets
// the arguments appended after a blank line, so none are lost.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := Split(args)
	used := strings.Contains(c.Body, "$ARGUMENTS")
	var b strings.Builder
	body := c.Body
	for i := 0; i < len(body); i++ {
		if body[i] != '$' {
			b.WriteByte(body[i])
			continue
		}
		rest := body[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += len("ARGUMENTS")
		case len(rest) > 0 && rest[0] >= '1' && rest[0] <= '9':
			n := int(rest[0] - '1')
			if n < len(words) {
				b.WriteString(words[n])
			}
			used = true
			i++
		default:
			b.WriteByte('$')
		}
	}
	out := b.String()
	if !used && args != "" {
		out += "\n\n" + args
	}
	return out
}

// Split splits arguments into words: spaces separate, and single or
// double quotes group (the quotes are removed).
func Split(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = oneLine(line)
	if len(line) > 80 {
		line = strings.ToValidUTF8(line[:80], "") + "…"
	}
	return line
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
