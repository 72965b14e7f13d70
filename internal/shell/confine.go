package shell

import (
	"fmt"
	"os"

	"github.com/olly-agent/olly/internal/sandbox"
)

// commandLine returns how to start bash for one command under policy: bash
// itself, or the sandbox helper that confines bash and then becomes it.
// The returned spec is what the command ran under (Policy Unsandboxed
// when nothing confines it).
func (s *Shell) commandLine(policy sandbox.Policy, bash []string) ([]string, sandbox.Spec, error) {
	sb := s.m.opts.Sandbox
	if policy == "" {
		policy = sandbox.WorkspaceWrite
	}
	if policy == sandbox.Unsandboxed || !sb.Status().Active() {
		return bash, sandbox.Spec{Policy: sandbox.Unsandboxed}, nil
	}
	spec := s.m.opts.SandboxSpec
	spec.Policy = policy
	spec.Writable = append(append([]string(nil), s.m.roots.paths...), spec.Writable...)
	// The shell's state comes first: the read-only policy may write only
	// that (the wrapper saves the session's cd and variables there).
	spec.Own = append([]string{s.dir, s.tmpDir}, spec.Own...)
	// Other sessions' shell state is not this command's business.
	spec.DenyRead = append(append([]string(nil), spec.DenyRead...), s.m.stateDir)
	argv, err := sb.Wrap(spec, bash)
	if err != nil {
		return nil, spec, err
	}
	return argv, spec, nil
}

// makeTmpDir creates the session's private temporary folder, which every
// command gets as TMPDIR (and TMP, TEMP): the workspace-write sandbox lets
// commands write there and not in the shared /tmp.
func (s *Shell) makeTmpDir() error {
	dir, err := os.MkdirTemp("", "olly-tmp-"+fileLabel(s.id)+"-*")
	if err != nil {
		return fmt.Errorf("shell: create the session's temporary folder: %w", err)
	}
	s.tmpDir = dir
	return nil
}

// explainRefusals adds a note when the sandbox probably refused something
// the command tried: the model reads what, and how to ask the person to
// run it outside the sandbox.
func (s *Shell) explainRefusals(spec sandbox.Spec, start string, res *Result) {
	res.Policy = spec.Policy
	if spec.Policy == sandbox.Unsandboxed || res.ExitCode == 0 {
		return
	}
	home, _ := os.UserHomeDir()
	res.Refused = sandbox.Explain(spec, start, home, res.Output)
	if n := sandbox.Note(spec.Policy, res.Refused); n != "" {
		res.Notes = append(res.Notes, n)
	}
}
