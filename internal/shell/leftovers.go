package shell

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// runRecord is what olly writes, per session, while the session's shell
// runs commands, so that the next olly to open the session can end what a
// crashed (SIGKILLed) olly left running. Processes are found by the
// recorded process groups and the session's environment marker, each
// checked against the recorded start time: never by name.
type runRecord struct {
	// Token is the session shell's marker (OLLY_SHELL_RUN=<token>.<n>).
	Token string `json:"token"`
	// Since is the start time of the session's first bash (clock ticks
	// after boot); nothing older is touched.
	Since uint64 `json:"since"`
	// Boot identifies the boot; after a reboot there is nothing to end.
	Boot string `json:"boot"`
	// Owner and OwnerStart are the olly process that runs the shell: while
	// it lives, its commands are its own.
	Owner      int    `json:"owner"`
	OwnerStart uint64 `json:"ownerStart"`
	// Groups are the process groups of the session's bash processes (their
	// pids), with their start times.
	Groups []groupRecord `json:"groups"`
}

type groupRecord struct {
	Pgid  int    `json:"pgid"`
	Start uint64 `json:"start"`
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (s *Shell) recordPath() string {
	if s.m.opts.RunDir == "" {
		return ""
	}
	return filepath.Join(s.m.opts.RunDir, fileLabel(s.id)+".json")
}

// record notes the process groups of the session's bash processes (each
// holds what its commands started in the background) in the session's
// record.
func (s *Shell) record() {
	path := s.recordPath()
	if path == "" || !procListing {
		return
	}
	rec := runRecord{Token: s.token, Since: s.since, Boot: s.m.boot, Owner: os.Getpid(), OwnerStart: s.m.selfStart}
	rec.Groups = append(rec.Groups, s.leaderStarts...)
	b, _ := json.Marshal(rec)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		_ = os.Rename(tmp, path)
	}
}

// endLeftovers ends what a crashed olly left running for this session,
// once, before the session's first command. It reports how many processes
// it killed.
func (s *Shell) endLeftovers() (int, error) {
	path := s.recordPath()
	if path == "" || !procListing {
		return 0, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("shell: read %s: %w", path, err)
	}
	defer os.Remove(path)
	var rec runRecord
	if json.Unmarshal(b, &rec) != nil || rec.Token == "" || rec.Boot == "" || rec.Boot != s.m.boot {
		return 0, nil
	}
	if rec.Owner > 0 && rec.Owner != os.Getpid() && procStart(rec.Owner) == rec.OwnerStart && rec.OwnerStart != 0 {
		return 0, nil // that olly still runs: its commands are its own
	}
	marker := []byte("OLLY_SHELL_RUN=" + rec.Token + ".")
	killed := 0
	for _, g := range rec.Groups {
		t := target{marker: marker, since: g.Start}
		// The group counts only while its leader is the recorded process;
		// once the leader is gone its pid (and so the group id) could be
		// reused, so only marked processes are taken.
		if procStart(g.Pgid) == g.Start {
			t.leader = g.Pgid
		}
		killed += killTree(t, s.m.opts.KillGrace)
	}
	killed += killTree(target{marker: marker, since: rec.Since}, s.m.opts.KillGrace)
	return killed, nil
}
