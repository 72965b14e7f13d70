package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/atomicfile"
)

// The .git probe (probeMount) starts the helper, a re-execution of the
// whole olly binary, so running it on every olly start costs that start
// a process. CacheGitProbe lets olly remember its answer in a file of its
// state folder, which no sandboxed command can write (the folder is a
// protected path), keyed by everything the answer depends on: the boot,
// the kernel, the user namespace settings, the uid and the helper binary.
// A stale or forged answer cannot weaken the protection either way: a
// wrong "per-entry rules" still keeps .git read-only (and only costs
// top-level entries), and a wrong "mount namespace" makes the helper
// refuse to run the command (it never runs one unconfined).

// probeFacts are the files whose content the probe's answer depends on,
// besides the binary and the uid. A missing one reads as "-"; the boot id
// must be there (otherwise nothing is cached).
var probeFacts = []string{
	"/proc/sys/kernel/random/boot_id",
	"/proc/sys/kernel/osrelease",
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
}

// probeRecord is the cache file's content.
type probeRecord struct {
	Key    string `json:"key"`
	Git    string `json:"git"`
	Reason string `json:"reason,omitempty"`
}

// maxProbeRecord bounds the cache file read.
const maxProbeRecord = 16 << 10

// CacheGitProbe makes b remember the .git probe's answer in file (olly's
// state folder; created as needed) and reuse it while nothing it depends
// on changed. Call it before the first Status. olly doctor does not use
// it: it probes for real.
func (b *Sandbox) CacheGitProbe(file string) {
	if b != nil && b.git != nil {
		b.git.cache = file
	}
}

// probeKey describes what the probe's answer depends on, or "" when it
// cannot be told (then nothing is cached).
func (b *Sandbox) probeKey() string {
	fi, err := os.Stat(b.exe)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "uid=%d exe=%s size=%d mtime=%d", os.Getuid(), b.exe, fi.Size(), fi.ModTime().UnixNano())
	if id := fileID(fi); id != "" {
		sb.WriteString(" id=" + id)
	}
	for i, f := range probeFacts {
		v, err := os.ReadFile(f)
		s := strings.TrimSpace(string(v))
		if err != nil || s == "" {
			if i == 0 {
				return ""
			}
			s = "-"
		}
		fmt.Fprintf(&sb, " %s=%s", filepath.Base(f), s)
	}
	return sb.String()
}

// cachedGit returns the remembered answer for key, if there is one.
func cachedGit(file, key string) (how, reason string, ok bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxProbeRecord))
	var rec probeRecord
	if err != nil || json.Unmarshal(buf, &rec) != nil || rec.Key != key || (rec.Git != GitMount && rec.Git != GitSplit) {
		return "", "", false
	}
	return rec.Git, rec.Reason, true
}

// rememberGit writes the answer for key (best effort: a failure only
// means the next olly probes again), replacing the file whole
// (atomicfile), so a reader never sees half a record.
func rememberGit(file, key, how, reason string) {
	js, err := json.Marshal(probeRecord{Key: key, Git: how, Reason: reason})
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o700) != nil {
		return
	}
	_ = atomicfile.Write(file, js, 0o600)
}

// probeGitCached is probeMount's answer, from the cache file when it
// holds one for this machine and binary.
func (b *Sandbox) probeGitCached() (how, reason string) {
	key := ""
	if b.git.cache != "" {
		key = b.probeKey()
	}
	if key != "" {
		if how, reason, ok := cachedGit(b.git.cache, key); ok {
			return how, reason
		}
	}
	how, reason = GitMount, ""
	if err := b.probeMount(); err != nil {
		how, reason = GitSplit, "no mount namespace: "+err.Error()
	}
	if key != "" {
		rememberGit(b.git.cache, key, how, reason)
	}
	return how, reason
}
