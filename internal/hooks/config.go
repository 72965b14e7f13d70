// Package hooks runs the person's hook commands on agent events, following
// Claude Code's contract where it makes sense so existing hooks work:
// settings under a `hooks` key (event → matcher groups → command hooks),
// the event as JSON on stdin, exit code 0 to go on (stdout JSON with
// decision, reason and additionalContext honoured), exit code 2 to block
// with stderr as the reason, any other code a warning. Project hooks come
// with the repository and run only once a person trusted them
// (internal/trust). docs/extensibility.md is the user's reference.
package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/trust"
)

// The hook events.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	PreCompact       = "PreCompact"
	SubagentStop     = "SubagentStop"
	Stop             = "Stop"
)

// Events lists the hook events olly runs, in the order they happen.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, SubagentStop, Stop}

// SessionStart sources (the input's source, and what a SessionStart
// matcher is matched against), as Claude Code names them.
const (
	// SourceStartup: the first prompt of a new session.
	SourceStartup = "startup"
	// SourceResume: the first prompt this olly runs in a session that
	// already had turns (--resume, --continue, picking it).
	SourceResume = "resume"
	// SourceClear: the first prompt of a session started by /new (olly's
	// /clear: the conversation starts over).
	SourceClear = "clear"
	// SourceCompact: the first prompt after the conversation was
	// compacted.
	SourceCompact = "compact"
)

// PreCompact triggers (the input's trigger, and what a PreCompact matcher
// is matched against).
const (
	TriggerManual = "manual" // /compact
	TriggerAuto   = "auto"   // the context window filled up
)

// DefaultTimeout is a hook's time limit when it sets none (Claude Code's).
const DefaultTimeout = 60 * time.Second

// maxTimeout bounds a hook's own timeout setting.
const maxTimeout = 10 * time.Minute

// The places hooks are read from, relative to the workspace or the user's
// configuration folder.
const (
	// ProjectFile is olly's project settings file for hooks.
	ProjectFile = ".olly/settings.json"
	// ClaudeProjectFile is Claude Code's project settings, read for
	// compatibility (hooks.claudeCompat).
	ClaudeProjectFile = ".claude/settings.json"
	// UserFileName is the user's hooks file in olly's configuration folder.
	UserFileName = "settings.json"
)

// Hook is one command hook.
type Hook struct {
	// Event is one of Events.
	Event string `json:"event"`
	// Matcher is the tool-name pattern of a PreToolUse or PostToolUse
	// hook (the source of a SessionStart hook, the trigger of a PreCompact
	// one): empty or "*" match every tool; otherwise a regular expression
	// that must match the whole name (Claude Code's tool name or olly's).
	// Other events ignore it.
	Matcher string `json:"matcher,omitempty"`
	// Command is run with bash -c in the workspace.
	Command string `json:"command"`
	// Timeout is the hook's time limit.
	Timeout time.Duration `json:"timeout"`
	// Source is the file the hook came from (as shown to the person).
	Source string `json:"source"`
	// Project marks a hook from a project file: it needs trust.
	Project bool `json:"project,omitempty"`

	re *regexp.Regexp
}

// Matches says whether a tool hook applies to a call of the tool with
// olly's name and Claude Code's name (the same for tools Claude Code does
// not have).
func (h Hook) Matches(olly, claude string) bool {
	if h.Matcher == "" || h.Matcher == "*" {
		return true
	}
	if h.re == nil {
		return h.Matcher == olly || h.Matcher == claude
	}
	return h.re.MatchString(olly) || h.re.MatchString(claude)
}

// settingsFile is the part of a settings file read here: Claude Code's
// shape.
type settingsFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// Parse reads the hooks of one settings file's content. source names the
// file in messages. Unknown events and non-command hooks are skipped with
// a warning (Claude Code has more events than olly runs); a malformed file
// or matcher is an error saying what to fix.
func Parse(data []byte, source string, project bool) (hooks []Hook, warnings []string, err error) {
	var f settingsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, fmt.Errorf("%s: not valid settings JSON (%v): fix the file's hooks", source, err)
	}
	names := make([]string, 0, len(f.Hooks))
	for ev := range f.Hooks {
		names = append(names, ev)
	}
	slices.Sort(names)
	for _, ev := range names {
		if !slices.Contains(Events, ev) {
			warnings = append(warnings, fmt.Sprintf("%s: hook event %q is not one olly runs (it runs %s); skipped", source, ev, strings.Join(Events, ", ")))
			continue
		}
		for gi, g := range f.Hooks[ev] {
			re, err := compileMatcher(g.Matcher)
			if err != nil {
				return nil, warnings, fmt.Errorf("%s: %s hook group %d: matcher %q is not a valid regular expression: %v", source, ev, gi+1, g.Matcher, err)
			}
			for _, h := range g.Hooks {
				if h.Type != "command" && h.Type != "" {
					warnings = append(warnings, fmt.Sprintf("%s: %s hook of type %q skipped: olly runs command hooks", source, ev, h.Type))
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					return nil, warnings, fmt.Errorf("%s: a %s hook has no command", source, ev)
				}
				hk := Hook{Event: ev, Matcher: g.Matcher, Command: h.Command, Timeout: DefaultTimeout, Source: source, Project: project, re: re}
				if h.Timeout != nil {
					if *h.Timeout <= 0 {
						return nil, warnings, fmt.Errorf("%s: a %s hook's timeout %v must be a positive number of seconds", source, ev, *h.Timeout)
					}
					hk.Timeout = min(time.Duration(*h.Timeout*float64(time.Second)), maxTimeout)
				}
				hooks = append(hooks, hk)
			}
		}
	}
	return hooks, warnings, nil
}

func compileMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// File is one settings file's hooks.
type File struct {
	// Path is the file; Source how it is shown (relative for project
	// files).
	Path, Source string
	Project      bool
	Hooks        []Hook
	// Workspace is the workspace root of a project file: the folder its
	// hooks run in, where the project files they run are looked up.
	Workspace string
}

// LoadOptions say where to look for hooks.
type LoadOptions struct {
	// Workspace is the workspace root ("" reads no project hooks).
	Workspace string
	// ConfigDir is olly's configuration folder (~/.config/olly), holding
	// the user's settings.json ("" reads none).
	ConfigDir string
	// ClaudeCompat also reads the project's .claude/settings.json.
	ClaudeCompat bool
}

// Load reads the user's and the project's hook files. Missing files are
// skipped; a broken one is reported in warnings and contributes no hooks
// (a broken project file must not stop olly).
func Load(o LoadOptions) (files []File, warnings []string) {
	type place struct {
		path, source string
		project      bool
	}
	var places []place
	if o.ConfigDir != "" {
		places = append(places, place{filepath.Join(o.ConfigDir, UserFileName), filepath.Join(o.ConfigDir, UserFileName), false})
	}
	if o.Workspace != "" {
		places = append(places, place{filepath.Join(o.Workspace, ProjectFile), ProjectFile, true})
		if o.ClaudeCompat {
			places = append(places, place{filepath.Join(o.Workspace, ClaudeProjectFile), ClaudeProjectFile, true})
		}
	}
	for _, p := range places {
		data, err := trust.ReadConfig(p.path, maxSettings)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("hooks: %s: %v", p.source, err))
			continue
		}
		hs, ws, err := Parse(data, p.source, p.project)
		warnings = append(warnings, ws...)
		if err != nil {
			warnings = append(warnings, "hooks: "+err.Error())
			continue
		}
		if len(hs) > 0 {
			f := File{Path: p.path, Source: p.source, Project: p.project, Hooks: hs}
			if p.project {
				f.Workspace = o.Workspace
			}
			files = append(files, f)
		}
	}
	return files, warnings
}

// maxSettings bounds a settings file read for hooks.
const maxSettings = 1 << 20
