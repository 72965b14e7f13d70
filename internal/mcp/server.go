// Package mcp connects olly to MCP (Model Context Protocol) servers and
// bridges what they offer into olly: their tools become tools named
// mcp__<server>__<tool>, their prompts slash commands, and their resources
// readable by the mcp_read_resource tool.
//
// Servers come from the user's mcp.servers setting and from a project's
// .mcp.json. A project server is a program the repository asks olly to
// start, so it starts only once a person has trusted it for the workspace
// (`olly mcp trust NAME`, recorded by internal/trust against a fingerprint
// of its command line, environment and URL). Servers connect lazily, on
// the first turn that lists tools; a failed one is retried with backoff
// and reported as an mcp_server_failed event. docs/extensibility.md
// describes the formats and rules.
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/trust"
)

// Where a server was configured.
const (
	SourceUser    = "user"    // the mcp.servers setting
	SourceProject = "project" // the workspace's .mcp.json
)

// ProjectFile is the project's server list, at the workspace root.
const ProjectFile = ".mcp.json"

// Server is one configured server and where it came from.
type Server struct {
	config.MCPServer
	Source string
	// File is the file it was read from (the settings file, .mcp.json).
	File string
}

// Fingerprint identifies what the server runs or reaches: a change to any
// of its command, arguments, environment, URL, headers or transport gives
// another fingerprint, so a trust given to the old entry does not apply.
//
// A project server's program is often a file of the workspace
// (`node tools/server.js`), which the model can rewrite: the content of
// its command and of every argument naming a regular file inside the
// project (beside .mcp.json) is part of the fingerprint, so an edited
// server needs trust again before it restarts.
func (s Server) Fingerprint() string {
	fp, _ := s.Fingerprinted()
	return fp
}

// Fingerprinted is Fingerprint and ProjectFiles from one reading of the
// project files.
func (s Server) Fingerprinted() (fingerprint string, files []string) {
	hashes := s.fileHashes()
	fp := trust.Fingerprint(struct {
		Type, Command, URL string
		Args               []string
		Env, Headers       map[string]string
		Files              map[string]string `json:",omitempty"`
	}{s.Type, s.Command, s.URL, s.Args, s.Env, s.Headers, hashes})
	for f, sum := range hashes {
		if trust.IsContentHash(sum) {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return fp, files
}

// fileHashes records, by trust.HashProjectFile, every path inside the
// project (beside .mcp.json) that the project server's command and
// arguments name: the content's hash, or that nothing is there yet; nil
// for other servers.
func (s Server) fileHashes() map[string]string {
	if !s.NeedsTrust() || s.File == "" || s.Type != config.MCPStdio {
		return nil
	}
	dir := filepath.Dir(s.File)
	var out map[string]string
	for _, a := range append([]string{s.Command}, s.Args...) {
		rel, sum, ok := trust.HashProjectFile(dir, a)
		if !ok {
			continue // an option, or outside the project: the model cannot write it
		}
		if out == nil {
			out = map[string]string{}
		}
		out[rel] = sum
	}
	return out
}

// ProjectFiles are the existing project files the server runs whose
// content is part of its fingerprint (its command and arguments naming
// files inside the project), sorted; none for other servers.
func (s Server) ProjectFiles() []string {
	_, files := s.Fingerprinted()
	return files
}

// NeedsTrust reports whether the server runs only once a person trusts it:
// project servers. The user's own settings are trusted by being theirs.
func (s Server) NeedsTrust() bool { return s.Source == SourceProject }

// Describe is the server's command line or URL, for listings.
func (s Server) Describe() string {
	if s.Type == config.MCPStdio {
		return trust.CommandLine(append([]string{s.Command}, s.Args...))
	}
	return s.Type + " " + s.URL
}

// projectJSON is the common .mcp.json format (Claude Code, Cursor):
// {"mcpServers": {NAME: {command, args, env} | {type, url, headers}}}.
// VS Code's .vscode/mcp.json names the map "servers".
type projectJSON struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	Servers    map[string]json.RawMessage `json:"servers"`
}

// maxConfigBytes bounds the configuration files read (a .mcp.json of a
// hostile repository must not exhaust memory).
const maxConfigBytes = 4 << 20

// ParseServers reads a JSON (or JSON with comments) document holding
// servers under "mcpServers" (or "servers"). Entries that are not valid
// are reported in errs and skipped, so one bad entry does not hide the
// rest; the servers are sorted by name.
func ParseServers(data []byte, source, file string) (servers []Server, errs []error) {
	if len(data) > maxConfigBytes {
		return nil, []error{fmt.Errorf("%s: larger than %d MB", file, maxConfigBytes>>20)}
	}
	var doc projectJSON
	if err := json.Unmarshal(StripJSONC(data), &doc); err != nil {
		return nil, []error{fmt.Errorf("%s: not valid JSON: %v", file, err)}
	}
	raw := doc.MCPServers
	if raw == nil {
		raw = doc.Servers
	}
	for name, body := range raw {
		var c config.MCPServer
		if err := json.Unmarshal(body, &c); err != nil {
			errs = append(errs, fmt.Errorf("%s: server %q: %v", file, name, err))
			continue
		}
		c.Name = name
		if err := c.Normalize(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		}
		servers = append(servers, Server{MCPServer: c, Source: source, File: file})
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return servers, errs
}

// LoadProject reads workspace/.mcp.json; a missing file is no servers.
func LoadProject(workspace string) ([]Server, []error) {
	file := filepath.Join(workspace, ProjectFile)
	data, err := trust.ReadConfig(file, maxConfigBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	return ParseServers(data, SourceProject, file)
}

// Configured merges the user's servers with the project's. A project
// server with the name of a user server is dropped with an error: the
// repository must not shadow a server the person configured.
func Configured(user []config.MCPServer, userFile, workspace string) ([]Server, []error) {
	var out []Server
	names := map[string]bool{}
	for _, c := range user {
		out = append(out, Server{MCPServer: c, Source: SourceUser, File: userFile})
		names[c.Name] = true
	}
	project, errs := LoadProject(workspace)
	for _, s := range project {
		if names[s.Name] {
			errs = append(errs, fmt.Errorf("%s: server %q is also in your mcp.servers setting; the project's is ignored", s.File, s.Name))
			continue
		}
		out = append(out, s)
	}
	return out, errs
}
