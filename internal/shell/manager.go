package shell

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// Defaults for ManagerOptions fields left zero.
const (
	DefaultTimeout        = 30 * time.Second // the seed's agent.toolTimeout
	DefaultMaxOutputBytes = 64 << 20
	DefaultKillGrace      = 250 * time.Millisecond
	DefaultLiveInterval   = 50 * time.Millisecond
)

// eofGrace is how long a command's output may keep arriving after bash
// exited before olly decides a background process holds the pipe and
// returns without waiting for it.
const eofGrace = 100 * time.Millisecond

// backlogBound bounds how long, past eofGrace, olly waits for its own
// reader to take the output still unread in the pipe once the command
// ended, and the end of a pipe no process holds any more (pump.settle):
// only a bound against a hang (a starved reader).
const backlogBound = 5 * time.Second

// ErrClosed is returned by Run on a shell (or manager) that was closed.
var ErrClosed = errors.New("shell: closed")

// ManagerOptions configure a Manager. Only Roots is required.
type ManagerOptions struct {
	// Roots are the workspace roots as absolute paths; the first is the
	// primary root, where sessions start.
	Roots []string
	// ArtifactDir receives full outputs of truncated commands. Empty means
	// a private temporary directory that CloseAll removes.
	ArtifactDir string
	// Env is the environment sessions start with; nil means os.Environ().
	Env []string
	// Shell is the bash binary (bash 4.4 or newer); empty means "bash" from
	// PATH.
	Shell string
	// DefaultTimeout applies when RunOptions.Timeout is zero.
	DefaultTimeout time.Duration
	// MaxOutputBytes caps one command's output: past it the command is
	// stopped and the rest discarded.
	MaxOutputBytes int64
	// KillGrace is how long stopped processes get between SIGTERM and
	// SIGKILL.
	KillGrace time.Duration
	// Limits bound the output shown to the model (zero: DefaultLimits).
	Limits Limits
	// LiveInterval is the least time between two OnOutput calls.
	LiveInterval time.Duration
	// Sandbox confines commands (nil or inactive: nothing does).
	// SandboxSpec is the template of each command's policy: the build
	// caches to let it write (the workspace roots are added), the
	// protected paths and the network setting; each shell adds its own
	// folders (state, TMPDIR) and RunOptions.Policy picks the policy.
	Sandbox     *sandbox.Sandbox
	SandboxSpec sandbox.Spec
	// ScratchDir holds the sessions' scratch directories (in olly's state
	// folder, which the sandbox protects). A directory allowed
	// (RunOptions.Writable) directly inside it is writable to that
	// command as one of the session's own folders; ScratchDir itself,
	// and so the other sessions' scratch directories, are not.
	ScratchDir string
	// EnvPolicy drops secrets from Env before any command sees it.
	EnvPolicy EnvPolicy
	// RunDir, when set, is where each session's running process groups
	// are recorded, so that the next olly to open the session ends what a
	// crashed one left running (see docs/shell.md).
	RunDir string
}

// Manager owns the shells of all sessions. It is safe for concurrent use.
type Manager struct {
	opts        ManagerOptions
	roots       roots
	caches      []string // SandboxSpec.Writable, resolved (pinned) when the manager was made
	denyRead    []string // SandboxSpec.DenyRead and stateDir: every command's
	shellPath   string
	stateDir    string
	artifactDir string
	ownArtifact bool
	baseEnv     []string
	shlvl       string
	boot        string // this boot's id, for RunDir records
	selfStart   uint64 // olly's own start time, for RunDir records

	// scratch is ScratchDir resolved, once it exists (scratchBase).
	scratch atomic.Pointer[string]

	mu      sync.Mutex
	shells  map[string]*Shell
	nextDir int
	closed  bool
	checked bool // the shell was found to be a usable bash

	// beforeWake, for tests only (nil otherwise), runs just before olly
	// wakes a bash for a command: a test can let the bash get ahead of
	// olly there, as a loaded machine does.
	beforeWake func(*bashProc)
}

// NewManager checks opts and creates the manager's private state
// directory. It starts no process.
func NewManager(opts ManagerOptions) (*Manager, error) {
	rs, err := newRoots(opts.Roots)
	if err != nil {
		return nil, err
	}
	opts = withDefaults(opts)
	shellPath, err := exec.LookPath(opts.Shell)
	if err != nil {
		return nil, fmt.Errorf("shell: find %s: %w (install bash or set the shell path)", opts.Shell, err)
	}
	m := &Manager{opts: opts, roots: rs, shellPath: shellPath, shells: make(map[string]*Shell)}
	// The template's places are pinned as they resolve now (see pinSpec).
	pinned := sandbox.Pin(opts.SandboxSpec)
	m.caches, m.opts.SandboxSpec.Own = pinned.Writable, pinned.Own
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if name, v, _ := strings.Cut(kv, "="); name == "SHLVL" {
			m.shlvl = v
		}
	}
	m.baseEnv = opts.EnvPolicy.filter(cleanEnv(env))
	if opts.RunDir != "" {
		if err := os.MkdirAll(opts.RunDir, 0o700); err != nil {
			return nil, fmt.Errorf("shell: create %s: %w", opts.RunDir, err)
		}
		m.boot, m.selfStart = bootID(), procStart(os.Getpid())
	}
	if m.stateDir, err = makeStateDir(); err != nil {
		return nil, err
	}
	// Other sessions' shell state, and the other bash processes' folders
	// of a session, are no command's business (clipped: a caller that
	// appends gets a copy).
	m.denyRead = slices.Clip(append(slices.Clone(opts.SandboxSpec.DenyRead), m.stateDir))
	m.artifactDir = opts.ArtifactDir
	if m.artifactDir == "" {
		m.artifactDir, err = os.MkdirTemp("", "olly-artifacts-*")
		m.ownArtifact = true
	} else {
		err = os.MkdirAll(m.artifactDir, 0o700)
	}
	if err != nil {
		_ = os.RemoveAll(m.stateDir)
		return nil, fmt.Errorf("shell: create artifact directory: %w", err)
	}
	return m, nil
}

// scratchBase returns ScratchDir with symbolic links resolved ("" without
// one). It is resolved until that succeeds (olly makes the folder at a
// turn's start), then kept: it lies in olly's state folder, which the
// sandbox protects from commands.
func (m *Manager) scratchBase() string {
	if m.opts.ScratchDir == "" {
		return ""
	}
	if p := m.scratch.Load(); p != nil {
		return *p
	}
	base := filepath.Clean(m.opts.ScratchDir)
	if r, err := filepath.EvalSymlinks(base); err == nil {
		m.scratch.Store(&r)
		return r
	}
	return base
}

// makeStateDir creates the private directory the sessions' state files live
// in, on a memory file system when there is one: every command rewrites
// a few small files, which on ext4 costs several milliseconds of waiting
// per command, and on tmpfs almost nothing.
func makeStateDir() (string, error) {
	var firstErr error
	for _, base := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm", os.TempDir()} {
		if base == "" {
			continue
		}
		dir, err := os.MkdirTemp(base, "olly-shell-*")
		if err == nil {
			// A real path: the bashes' folders in it are granted to them
			// only as such (sandbox.Spec.Pinned); the folder holding it
			// may be a link (macOS's /var), never the folder itself.
			return realPath(dir), nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", fmt.Errorf("shell: create state directory: %w", firstErr)
}

func withDefaults(o ManagerOptions) ManagerOptions {
	if o.Shell == "" {
		o.Shell = "bash"
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = DefaultTimeout
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.KillGrace <= 0 {
		o.KillGrace = DefaultKillGrace
	}
	if o.LiveInterval <= 0 {
		o.LiveInterval = DefaultLiveInterval
	}
	o.Limits = o.Limits.orDefault()
	return o
}

// ArtifactDir returns the directory output artifacts are written to, so the
// file tools can let the model read them.
func (m *Manager) ArtifactDir() string { return m.artifactDir }

// Session returns the shell of session id, creating it on first use. After
// that shell is closed, the next call returns a fresh one.
func (m *Manager) Session(id string) *Shell {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.shells[id]; ok {
		return s
	}
	s := newShell(m, id, fmt.Sprintf("%s/%d", m.stateDir, m.nextDir))
	m.nextDir++
	if m.closed {
		s.closeOnce.Do(func() { close(s.closing) })
		return s
	}
	m.shells[id] = s
	return s
}

// forget drops s from the manager once it is closed.
func (m *Manager) forget(s *Shell) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shells[s.id] == s {
		delete(m.shells, s.id)
	}
}

// CloseAll closes every shell, killing what their commands left running,
// and removes the manager's state directory (and the artifact directory if
// the manager created it). Call it when olly exits.
func (m *Manager) CloseAll() error {
	m.mu.Lock()
	m.closed = true
	shells := make([]*Shell, 0, len(m.shells))
	for _, s := range m.shells {
		shells = append(shells, s)
	}
	m.mu.Unlock()

	errs := make([]error, len(shells))
	var wg sync.WaitGroup
	for i, s := range shells {
		wg.Go(func() { errs[i] = s.Close() })
	}
	wg.Wait()
	if err := os.RemoveAll(m.stateDir); err != nil {
		errs = append(errs, fmt.Errorf("shell: remove state directory: %w", err))
	}
	if m.ownArtifact {
		if err := os.RemoveAll(m.artifactDir); err != nil {
			errs = append(errs, fmt.Errorf("shell: remove artifact directory: %w", err))
		}
	}
	return errors.Join(errs...)
}

// bashChecked reports whether a bash of the manager already said it is
// new enough (its driver's V frame, see hello).
func (m *Manager) bashChecked() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.checked
}

// checkVersion checks the version a session's bash reported in its V
// frame (the driver uses ${var@a} and mapfile -d, from bash 4.4); ok is
// false when it sent none (it is not bash, or failed to start).
func (m *Manager) checkVersion(v [2]int, ok bool, exitErr error) error {
	if !ok {
		why := ""
		if exitErr != nil {
			why = fmt.Sprintf(" (%v)", exitErr)
		}
		return fmt.Errorf("shell: %s does not run as bash 4.4 or newer%s; install bash and point olly at it", m.shellPath, why)
	}
	if v[0] < 4 || (v[0] == 4 && v[1] < 4) {
		return fmt.Errorf("shell: %s is not bash 4.4 or newer (it reports \"%d %d\"); install a newer bash and point olly at it",
			m.shellPath, v[0], v[1])
	}
	m.mu.Lock()
	m.checked = true
	m.mu.Unlock()
	return nil
}

// newToken returns a random hex string that marks one session's processes.
func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fileLabel turns a session id into something safe and short for file
// names: letters, digits, '-' and '_', at most 32 of them.
func fileLabel(id string) string {
	s := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, id)
	if len(s) > 32 {
		s = s[:32]
	}
	if s == "" {
		s = "session"
	}
	return s
}
