// Package lsp is olly's client for real language servers (gopls, pyright,
// typescript-language-server, rust-analyzer, clangd): diagnostics after the
// agent writes, and code navigation for the code-intelligence tools.
//
// A Manager starts the server for a language the first time a file of that
// language is used, rooted at the workspace, keeps the documents the agent
// touches in sync, restarts a crashed server (a bounded number of times),
// and shuts every server down on Close. docs/lsp.md describes the
// lifecycle, timeouts and limits.
package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Server says how to start the language server for one language.
type Server struct {
	// Language is the LSP language id ("go", "python", …).
	Language string
	// Extensions are the file name endings the server handles.
	Extensions []string
	// Command and Args start the server (stdio). Alternatives are tried in
	// order when Command is not on PATH.
	Command      string
	Args         []string
	Alternatives []Alternative
	// Install is the command a person runs to install the server.
	Install string
}

// Alternative is another server for the same language.
type Alternative struct {
	Command string
	Args    []string
	Install string
}

// DefaultServers is the built-in table, one server per language.
func DefaultServers() []Server {
	return []Server{
		{Language: "go", Extensions: []string{".go"}, Command: "gopls",
			Install: "go install golang.org/x/tools/gopls@latest"},
		{Language: "python", Extensions: []string{".py", ".pyi"}, Command: "pyright-langserver", Args: []string{"--stdio"},
			Install:      "npm install -g pyright",
			Alternatives: []Alternative{{Command: "pylsp", Install: "pip install python-lsp-server"}}},
		{Language: "typescript", Extensions: []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"}, Command: "typescript-language-server", Args: []string{"--stdio"},
			Install: "npm install -g typescript-language-server typescript"},
		{Language: "rust", Extensions: []string{".rs"}, Command: "rust-analyzer",
			Install: "rustup component add rust-analyzer"},
		{Language: "c", Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"}, Command: "clangd",
			Install: "apt-get install clangd (or your platform's LLVM package)"},
	}
}

// ServersWith applies the lsp.servers setting to the built-in table. Each
// entry is "LANGUAGE[ .EXT…]=COMMAND [ARG…]":
//
//	go=gopls -remote=auto        another command for a known language
//	zig .zig .zon=zls            a new language and its file endings
//	python=                      no server for the language
//
// An entry replaces the language's command and alternatives; arguments are
// split on spaces (no quoting).
func ServersWith(entries []string) ([]Server, error) {
	servers := DefaultServers()
	for _, e := range entries {
		o, err := parseOverride(e)
		if err != nil {
			return nil, err
		}
		servers = applyOverride(servers, o)
	}
	return servers, nil
}

type override struct {
	language   string
	extensions []string
	command    []string
}

func parseOverride(entry string) (override, error) {
	left, right, ok := strings.Cut(entry, "=")
	names := strings.Fields(left)
	if !ok || len(names) == 0 {
		return override{}, fmt.Errorf("lsp.servers entry %q: write LANGUAGE=COMMAND, e.g. \"go=gopls\" or \"zig .zig=zls\"", entry)
	}
	o := override{language: names[0], command: strings.Fields(right)}
	for _, ext := range names[1:] {
		if !strings.HasPrefix(ext, ".") || len(ext) < 2 {
			return override{}, fmt.Errorf("lsp.servers entry %q: file endings start with a dot (\".zig\"), got %q", entry, ext)
		}
		o.extensions = append(o.extensions, strings.ToLower(ext))
	}
	return o, nil
}

func applyOverride(servers []Server, o override) []Server {
	for i, s := range servers {
		if s.Language != o.language {
			continue
		}
		if len(o.command) == 0 {
			return append(servers[:i:i], servers[i+1:]...)
		}
		s.Command, s.Args, s.Alternatives = o.command[0], o.command[1:], nil
		s.Install = "install " + o.command[0] + " (set by lsp.servers)"
		if len(o.extensions) > 0 {
			s.Extensions = o.extensions
		}
		servers[i] = s
		return servers
	}
	if len(o.command) == 0 {
		return servers
	}
	// A new language claims its endings from any built-in server.
	for i := range servers {
		servers[i].Extensions = without(servers[i].Extensions, o.extensions)
	}
	return append(servers, Server{Language: o.language, Extensions: o.extensions, Command: o.command[0],
		Args: o.command[1:], Install: "install " + o.command[0] + " (set by lsp.servers)"})
}

func without(list, drop []string) []string {
	var out []string
	for _, x := range list {
		keep := true
		for _, d := range drop {
			keep = keep && x != d
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}

// serverFor finds the server handling path by its file ending.
func serverFor(servers []Server, path string) (Server, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return Server{}, false
	}
	for _, s := range servers {
		for _, e := range s.Extensions {
			if e == ext {
				return s, true
			}
		}
	}
	return Server{}, false
}

// Resolved is a server command found on PATH.
type Resolved struct {
	// Command is the name from the table, Path where it was found.
	Command string
	Path    string
	Args    []string
}

// Resolve finds the first of the server's commands on PATH (Command, then
// each alternative). ok is false when none is installed.
func (s Server) Resolve(lookPath func(string) (string, error)) (r Resolved, ok bool) {
	if s.Command == "" {
		return Resolved{}, false
	}
	if p, err := lookPath(s.Command); err == nil {
		return Resolved{Command: s.Command, Path: p, Args: s.Args}, true
	}
	for _, a := range s.Alternatives {
		if p, err := lookPath(a.Command); err == nil {
			return Resolved{Command: a.Command, Path: p, Args: a.Args}, true
		}
	}
	return Resolved{}, false
}

// languageID is the id a document is opened with: the TypeScript and C
// servers serve several languages and want to be told which.
func languageID(s Server, path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "cpp"
	}
	return s.Language
}
