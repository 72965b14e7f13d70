package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/workspace"
)

// Project context (seed: projectContext.ts): what a read-only mode or a
// sub-agent should know about the project before it starts — the
// manifests, the README and the git state — discovered once per session
// and cached. The orchestrator does not get it: it delegates reading to
// sub-agents, which do. The instruction files (AGENTS.md, CLAUDE.md) are
// not here: every mode gets them in a block of their own (extend.go).
const (
	// defaultProjectContextBytes bounds the whole block.
	defaultProjectContextBytes = 12_000
	// projectFileMax bounds one file in it.
	projectFileMax = 4_000
	// projectMinRoom is the least room worth adding a file for.
	projectMinRoom = 200
	// gitTimeout bounds each git command.
	gitTimeout = 3 * time.Second
	// gitStatusLines and gitLogCommits bound the git section.
	gitStatusLines = 20
	gitLogCommits  = 5
	// projectCacheMax bounds the sessions whose context is kept.
	projectCacheMax = 64
)

// manifestFiles say what the project is built with.
func manifestFiles() []string {
	return []string{"go.mod", "package.json", "pyproject.toml", "Cargo.toml", "requirements.txt", "setup.py",
		"pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "CMakeLists.txt", "Makefile"}
}

// projectCache holds each session's project context.
type projectCache struct {
	mu      sync.Mutex
	entries map[string]*projectEntry
}

type projectEntry struct {
	mu   sync.Mutex
	done bool
	text string
}

// projectContext returns the session's project context block, computing
// it on first use. Concurrent sub-agents of one session wait for one
// computation. A computation cut short by cancellation is not kept.
func (a *Agent) projectContext(ctx context.Context, session string, ws *workspace.Workspace) string {
	if ws == nil {
		return ""
	}
	key := session + "\x00" + ws.Primary().Path
	c := &a.project
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]*projectEntry{}
	}
	e := c.entries[key]
	if e == nil {
		if len(c.entries) >= projectCacheMax {
			for k := range c.entries { // any one: sessions of long ago
				delete(c.entries, k)
				break
			}
		}
		e = &projectEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		e.text = buildProjectContext(ctx, ws, a.using(ctx).cfg.ProjectContextBytes)
		e.done = ctx.Err() == nil
	}
	return e.text
}

// buildProjectContext gathers the block within budget bytes.
func buildProjectContext(ctx context.Context, ws *workspace.Workspace, budget int) string {
	var parts []string
	room := budget
	add := func(title, body string, cut bool) {
		body = strings.TrimRight(body, "\n")
		if body == "" || room < projectMinRoom {
			return
		}
		body = cutAtLine(body, min(room, projectFileMax), cut)
		parts = append(parts, "## "+title+"\n"+body)
		room -= len(body) + len(title) + 4
	}
	file := func(name string) {
		text, cut := readProjectFile(ws, name)
		add(name, text, cut)
	}
	add("Git", gitContext(ctx, ws.Primary().Path), false)
	for _, name := range manifestFiles() {
		file(name)
	}
	if name := readmeName(ws.Primary().Path); name != "" {
		file(name)
	}
	if len(parts) == 0 {
		return ""
	}
	return "<project_context>\nFound at the start of the session (files may be cut short; read them for more):\n\n" +
		strings.Join(parts, "\n\n") + "\n</project_context>"
}

// readProjectFile reads the start of a workspace file, and whether there
// is more; "" when it is missing, outside the workspace (a link), binary
// or unreadable.
func readProjectFile(ws *workspace.Workspace, name string) (string, bool) {
	p, err := ws.Resolve(name)
	if err != nil || !p.Exists() || p.IsDir() || !p.Info.Mode().IsRegular() {
		return "", false
	}
	b, err := workspace.ReadRegularNoFollow(p.Abs, projectFileMax+1)
	if err != nil || bytes.IndexByte(b, 0) >= 0 {
		return "", false
	}
	more := len(b) > projectFileMax
	if more {
		b = b[:projectFileMax]
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1] // a character the limit split
		}
	}
	if !utf8.Valid(b) {
		return "", false
	}
	return string(b), more
}

// readmeName finds the project's README (README.md, readme.rst, …).
func readmeName(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	best := ""
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasPrefix(strings.ToUpper(n), "README") {
			continue
		}
		if best == "" || strings.EqualFold(n, "README.md") {
			best = n
		}
	}
	return best
}

// cutAtLine shortens s to at most n bytes at a line boundary, saying so;
// more says s itself was already cut.
func cutAtLine(s string, n int, more bool) string {
	const mark = "\n… (cut short)"
	if len(s) <= n && !more {
		return s
	}
	cut := min(len(s), max(0, n-len(mark)))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if k := strings.LastIndexByte(s[:cut], '\n'); k > 0 {
		cut = k
	}
	return s[:cut] + mark
}

// gitContext is the branch, the short status and the last commits of the
// repository at root; "" when it is not one or git is missing.
func gitContext(ctx context.Context, root string) string {
	branch, err := git(ctx, root, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Branch: %s\n", strings.TrimSpace(branch))
	if status, err := git(ctx, root, "status", "--short"); err == nil {
		lines := strings.Split(strings.TrimRight(status, "\n"), "\n")
		switch {
		case strings.TrimSpace(status) == "":
			b.WriteString("Status: clean\n")
		default:
			b.WriteString("Status (git status --short):\n")
			for i, l := range lines {
				if i == gitStatusLines {
					fmt.Fprintf(&b, "… and %d more\n", len(lines)-gitStatusLines)
					break
				}
				b.WriteString(l + "\n")
			}
		}
	}
	if log, err := git(ctx, root, "log", "--oneline", "--no-decorate", fmt.Sprintf("-n%d", gitLogCommits)); err == nil && strings.TrimSpace(log) != "" {
		b.WriteString("Recent commits:\n" + log)
	}
	return b.String()
}

// git runs a reading git command in dir, without locks or prompts.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "--no-pager"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return out.String(), nil
}
