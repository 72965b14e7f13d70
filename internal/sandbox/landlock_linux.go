//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minNetABI is the first Landlock ABI with TCP rules.
const minNetABI = 4

func detect() Status {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		why := "Landlock is not available in this kernel (it needs Linux 5.13 or newer with Landlock enabled)"
		if err != nil {
			why += fmt.Sprintf(": %v", err)
		}
		return Status{Reason: why}
	}
	st := Status{Mechanism: "landlock", ABI: abi}
	if abi < minNetABI {
		st.Reason = fmt.Sprintf("this kernel's Landlock (ABI %d) cannot restrict TCP (ABI 4, Linux 6.7, can), so commands may use the network", abi)
	}
	return st
}

// Access rights, by grant.
var (
	rightsRead = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir)
	// File rules may carry only the rights that apply to files.
	rightsFileRead  = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSReadFile)
	rightsFileWrite = rightsFileRead | landlock.AccessFSSet(llsys.AccessFSWriteFile|llsys.AccessFSTruncate)
)

func rules(grants []Grant) []landlock.Rule {
	out := make([]landlock.Rule, 0, len(grants))
	for _, g := range grants {
		var r landlock.FSRule
		switch {
		case g.Access == List:
			r = landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSReadDir), g.Path)
		case !g.Dir && g.Access == Write:
			r = landlock.PathAccess(rightsFileWrite, g.Path)
		case !g.Dir:
			r = landlock.PathAccess(rightsFileRead, g.Path)
		case g.Access == Write:
			r = landlock.RWDirs(g.Path).WithRefer()
		default:
			r = landlock.PathAccess(rightsRead, g.Path)
		}
		out = append(out, r.IgnoreIfMissing())
	}
	return out
}

// config is the Landlock configuration for spec: everything ABI 7 can
// restrict (best effort below it), TCP only when the network is off.
func config(spec Spec) landlock.Config {
	cfg := landlock.V7
	if spec.network() {
		cfg.HandledAccessNet = 0
	}
	return cfg.BestEffort()
}

// rulesetFD builds spec's ruleset from its allow list (Plan(spec))
// without enforcing it.
func rulesetFD(spec Spec, grants []Grant) (int, uint32, error) {
	fd, flags, err := config(spec).NewRulesetFD(rules(grants)...)
	switch {
	case err != nil:
		return -1, 0, fmt.Errorf("sandbox: build the Landlock rules: %w", err)
	case fd < 0:
		return -1, 0, fmt.Errorf("sandbox: this kernel cannot enforce Landlock rules")
	}
	return fd, flags, nil
}

// confineAndExec restricts this process (every thread) and executes argv.
func confineAndExec(spec Spec, argv []string) error {
	if spec.Mount {
		// The mount namespace and the dropped capability belong to this
		// thread: the command is executed from it.
		runtime.LockOSThread()
		if err := protectByMount(realPaths(spec.writable()), spec.readOnly(true)); err != nil {
			return fmt.Errorf("make .git read-only: %w", err)
		}
	}
	if spec.Ruleset > 0 {
		// olly built the ruleset: apply it to this thread (the one that
		// executes the command) and keep the descriptor from the command.
		runtime.LockOSThread()
		err := confineThread(spec.Ruleset, spec.RulesetFlags)
		_ = unix.Close(spec.Ruleset)
		if err != nil {
			return err
		}
		return execIn(argv)
	}
	if err := config(spec).Restrict(rules(Plan(spec))...); err != nil {
		return fmt.Errorf("apply the Landlock rules: %w", err)
	}
	return execIn(argv)
}

// execIn executes argv in place of this process.
func execIn(argv []string) error {
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(prog, argv, syscallEnviron())
}
