package tools

import (
	"fmt"
	"sort"

	"github.com/olly-agent/olly/internal/llm"
)

// Registry holds the tools by name.
type Registry struct {
	tools map[string]Tool
	order []string
}

// NewRegistry returns a registry of tools, in the given order. Two tools
// with one name are a programming error.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		name := t.Spec().Name
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("tool %q registered twice", name)
		}
		r.tools[name] = t
		r.order = append(r.order, name)
	}
	return r, nil
}

// Get returns the tool named name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names returns the set of tool names (for text tool-call parsing).
func (r *Registry) Names() map[string]bool {
	out := make(map[string]bool, len(r.tools))
	for n := range r.tools {
		out[n] = true
	}
	return out
}

// Specs returns the specs of the named tools, in registry order; no names
// means all tools. Unknown names are ignored by design: a mode's allow list
// may name tools (LSP, MCP) that this run did not register.
func (r *Registry) Specs(names ...string) []llm.Tool {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []llm.Tool
	for _, n := range r.order {
		if len(names) == 0 || want[n] {
			out = append(out, r.tools[n].Spec())
		}
	}
	return out
}

// Sorted returns the tool names in alphabetical order.
func (r *Registry) Sorted() []string {
	out := append([]string(nil), r.order...)
	sort.Strings(out)
	return out
}

// Core returns the core tools with their default limits, in the order the
// model sees them: read_file, write_file, list_files, find_files,
// search_workspace, run_terminal_command.
func Core() []Tool {
	return []Tool{ReadFile{}, WriteFile{}, ListFiles{}, FindFiles{}, Search{}, Terminal{}}
}
