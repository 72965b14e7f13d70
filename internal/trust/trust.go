// Package trust records which project-supplied programs (MCP servers from a
// project's .mcp.json, project hooks) a person has trusted in a workspace.
//
// Such programs come with the repository, so a model steered by hostile
// content could add or change them; they run only once a person trusts
// them. A trust is bound to a fingerprint of what would run (command,
// arguments, environment, URL): a changed entry is a different program and
// needs trusting again. The store lives in olly's state directory, which
// the sandbox keeps every command (and so the model) from writing.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/atomicfile"
)

// Kinds of trusted things.
const (
	KindMCP  = "mcp"
	KindHook = "hook"
)

// Entry is one trust decision.
type Entry struct {
	Workspace   string    `json:"workspace"`
	Kind        string    `json:"kind"`
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
}

type file struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
	// Declined are the programs a person said never to ask about again,
	// each for one fingerprint. Kept apart from Entries so an older olly
	// reading the file (which knows only Entries) never takes a refusal
	// for a trust.
	Declined []Entry `json:"declined,omitempty"`
}

// Store is the trust file. It is re-read on every question, so a trust
// given by `olly mcp trust` in another process applies at once.
type Store struct {
	path string
	mu   sync.Mutex
}

// Open returns the store kept in the file at path (created on the first
// Trust). A file that exists but cannot be read is an error.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("trust: no file path")
	}
	s := &Store{path: path}
	if _, err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Fingerprint is the hex SHA-256 of v's JSON encoding (maps are encoded
// with sorted keys, so equal values give equal fingerprints).
func Fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only unencodable values (channels, functions) fail: never
		// trusted, since no stored fingerprint is empty.
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Trusted reports whether name of kind is trusted in workspace with this
// fingerprint. Any failure to read the store answers false.
func (s *Store) Trusted(workspace, kind, name, fingerprint string) bool {
	return s.holds(func(f *file) []Entry { return f.Entries }, workspace, kind, name, fingerprint)
}

// Trust records that name of kind, as fingerprinted, may run in workspace,
// replacing an earlier trust of the same name.
func (s *Store) Trust(workspace, kind, name, fingerprint string) error {
	return s.record(func(f *file) *[]Entry { return &f.Entries }, workspace, kind, name, fingerprint)
}

// Decline records that a person does not want to be asked again about
// name of kind in workspace while it has this fingerprint: it does not
// run, and prompts leave it out. A changed program (another fingerprint)
// is asked about again. It replaces an earlier trust of the same name.
func (s *Store) Decline(workspace, kind, name, fingerprint string) error {
	return s.record(func(f *file) *[]Entry { return &f.Declined }, workspace, kind, name, fingerprint)
}

// Declined reports whether a person declined name of kind in workspace
// with this fingerprint (Decline). Any failure to read the store answers
// false: the person is asked.
func (s *Store) Declined(workspace, kind, name, fingerprint string) bool {
	return s.holds(func(f *file) []Entry { return f.Declined }, workspace, kind, name, fingerprint)
}

// holds reports whether the list of the store's file that list picks has
// name of kind in workspace with this fingerprint; false on any failure.
func (s *Store) holds(list func(*file) []Entry, workspace, kind, name, fingerprint string) bool {
	if s == nil || fingerprint == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return false
	}
	ws := clean(workspace)
	for _, e := range list(f) {
		if e.Workspace == ws && e.Kind == kind && e.Name == name {
			return e.Fingerprint == fingerprint
		}
	}
	return false
}

// record puts name of kind in workspace, as fingerprinted, on the list
// that list picks (trusted or declined), after taking it off both.
func (s *Store) record(list func(*file) *[]Entry, workspace, kind, name, fingerprint string) error {
	if fingerprint == "" {
		return errors.New("trust: empty fingerprint")
	}
	return s.update(func(f *file) {
		ws := clean(workspace)
		f.Entries = remove(f.Entries, ws, kind, name)
		f.Declined = remove(f.Declined, ws, kind, name)
		l := list(f)
		*l = append(*l, Entry{Workspace: ws, Kind: kind, Name: name, Fingerprint: fingerprint, At: time.Now().UTC()})
	})
}

// Revoke forgets the trust (or refusal) of name of kind in workspace (no
// error when there was none).
func (s *Store) Revoke(workspace, kind, name string) error {
	return s.update(func(f *file) {
		f.Entries = remove(f.Entries, clean(workspace), kind, name)
		f.Declined = remove(f.Declined, clean(workspace), kind, name)
	})
}

// Entries lists the trusts of workspace ("" lists all).
func (s *Store) Entries(workspace string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range f.Entries {
		if workspace == "" || e.Workspace == clean(workspace) {
			out = append(out, e)
		}
	}
	return out, nil
}

// update re-reads the file under the process lock and a file lock (two
// olly processes trusting at once must not lose each other's decision),
// applies change and replaces the file atomically.
func (s *Store) update(change func(*file)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("trust: lock %s: %w", s.path, err)
	}
	defer unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	change(f)
	sortEntries(f.Entries)
	sortEntries(f.Declined)
	f.Version = 1
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: encode: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust: write %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) load() (*file, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", s.path, err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("trust: %s is not a valid trust file (%v): fix or delete it, then trust again", s.path, err)
	}
	return &f, nil
}

func sortEntries(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Workspace != b.Workspace {
			return a.Workspace < b.Workspace
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
}

func remove(es []Entry, ws, kind, name string) []Entry {
	out := es[:0]
	for _, e := range es {
		if e.Workspace != ws || e.Kind != kind || e.Name != name {
			out = append(out, e)
		}
	}
	return out
}

// clean makes workspace paths comparable (symlinks resolved where they
// exist), so the same folder reached two ways is one workspace.
func clean(ws string) string {
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	return filepath.Clean(ws)
}
