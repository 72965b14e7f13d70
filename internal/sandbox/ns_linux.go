//go:build linux

package sandbox

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Landlock only allows, so it cannot take writing .git back from a
// writable workspace without taking the workspace folder itself (new
// top-level entries) with it. Where user namespaces work, the helper
// starts in a user namespace of its own instead (created by the clone
// that starts it), where it holds CAP_SYS_ADMIN and nothing more: it
// unshares a mount namespace, bind-mounts each protected path read-only
// over itself, drops the capability, confines itself with Landlock (which
// also forbids any later mount or umount) and executes the command. The
// mounts exist only in that namespace: nothing changes for olly or anyone
// else.

// nsAttr returns base (a copy) with the namespaces and identity mapping
// the helper needs: the caller's own uid and gid mapped to themselves
// (root: every id, so root keeps its file access), and, for a user other
// than root, CAP_SYS_ADMIN kept across the helper's exec as an ambient
// capability (dropped again before the command runs).
func nsAttr(base *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if base != nil {
		c := *base
		a = &c
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: min(1<<32-1, math.MaxInt)}} // every ID (half of them where int is 32 bits)
		a.UidMappings, a.GidMappings, a.GidMappingsEnableSetgroups = all, all, true
		return a
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	return a
}

// helperCmd turns cmd into the helper's command line under spec, started
// in namespaces of its own.
func (b *Sandbox) helperCmd(cmd *exec.Cmd, spec Spec) error {
	js, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("sandbox: encode policy: %w", err)
	}
	cmd.Path = b.exe
	cmd.Args = append([]string{b.exe, HelperArg, string(js)}, cmd.Args...)
	cmd.SysProcAttr = nsAttr(cmd.SysProcAttr)
	return nil
}

// startInNamespace starts cmd through the helper in a user and mount
// namespace of its own (spec.Mount set; grants is Plan(spec)), from a locked thread that waits
// for it (so a parent-death signal fires only when olly dies).
//
// olly builds the Landlock ruleset and passes it to the helper as an
// inherited descriptor, so the helper only mounts, applies it and
// executes the command.
func (b *Sandbox) startInNamespace(cmd *exec.Cmd, spec Spec, grants []Grant) (<-chan error, error) {
	fd, flags, err := rulesetFD(spec, grants)
	if err != nil {
		return nil, err
	}
	ruleset := os.NewFile(uintptr(fd), "landlock-ruleset")
	defer ruleset.Close()
	cmd.ExtraFiles = append(cmd.ExtraFiles, ruleset)
	spec.Ruleset, spec.RulesetFlags = 2+len(cmd.ExtraFiles), flags
	if err := b.helperCmd(cmd, spec); err != nil {
		return nil, err
	}
	return startOnThread(cmd, nil)
}

// protectByMount makes paths, inside the writable places, read-only for
// the calling thread and what it executes: a mount namespace of its own
// (whose mounts receive no change from, and send none to, the one it was
// copied from), each folder on the way from a place down to a path
// bind-mounted over itself read-write (pinFolders), each path
// bind-mounted read-only over itself, then CAP_SYS_ADMIN dropped. The
// caller has locked the thread and executes the command from it.
func protectByMount(places, paths []string) error {
	if err := unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_FS); err != nil {
		return fmt.Errorf("create a mount namespace (olly starts the helper in a user namespace of its own): %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("detach the mount namespace: %w", err)
	}
	if err := mountPinned(pinFolders(places, paths)); err != nil {
		return err
	}
	if err := mountReadOnly(paths); err != nil {
		return err
	}
	return dropMountRights()
}

// pinFolders returns the folders between each read-only path and the
// outermost writable place holding it (the place excluded, the path's
// own folder included), shallowest first, each once. A read-only mount
// keeps its own path from being renamed or removed, not the folders
// above it: "mv third_party/lib x && mkdir -p third_party/lib/.git"
// would put a new .git where the person's git looks. A mount point
// cannot be renamed or removed (EBUSY), so these are bind-mounted over
// themselves, read-write: what is inside them can still change.
func pinFolders(places, paths []string) []string {
	var out []string
	for _, p := range paths {
		top := ""
		for _, w := range places {
			w = filepath.Clean(w)
			if p != w && under(p, w) && (top == "" || len(w) < len(top)) {
				top = w
			}
		}
		if top == "" {
			continue
		}
		for d := filepath.Dir(p); d != top && under(d, top); d = filepath.Dir(d) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), strings.Compare(a, b))
	})
	return out
}

// mountPinned bind-mounts each folder over itself (read-write, with the
// mounts below it): a mount point cannot be renamed or removed.
func mountPinned(dirs []string) error {
	for _, d := range dirs {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mount %s (a folder on the way to a protected .git): %w", d, err)
		}
	}
	return nil
}

// mountReadOnly bind-mounts each path read-only over itself.
func mountReadOnly(paths []string) error {
	for _, p := range paths {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mount %s: %w", p, err)
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// dropMountRights removes CAP_SYS_ADMIN from the calling thread (the one
// that executes the command): from its ambient, inheritable, permitted
// and effective sets, and for root (uid 0 in the namespace regains the
// bounding set at exec) from the bounding set, so the command can never
// undo the read-only mounts (Landlock forbids mount and umount too; this
// also covers mount_setattr, which it does not hook).
func dropMountRights() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read the capabilities: %w", err)
	}
	if os.Geteuid() == 0 {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_ADMIN, 0, 0, 0); err != nil {
			return fmt.Errorf("drop CAP_SYS_ADMIN from the bounding set: %w", err)
		}
	}
	i, bit := unix.CAP_SYS_ADMIN/32, uint32(1)<<(unix.CAP_SYS_ADMIN%32)
	data[i].Effective &^= bit
	data[i].Permitted &^= bit
	data[i].Inheritable &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop CAP_SYS_ADMIN: %w", err)
	}
	return nil
}

// probeMount checks, with the real mechanism, that a helper started in
// its own namespaces can make a .git read-only: a command in a workspace
// must be unable to write its .git and able to write beside it.
func (b *Sandbox) probeMount() error {
	dir, err := os.MkdirTemp("", "olly-git-probe-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	if err := os.Mkdir(filepath.Join(dir, GitDir), 0o700); err != nil {
		return err
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return fmt.Errorf("no sh to probe with: %w", err)
	}
	var out bytes.Buffer
	cmd := exec.Command(sh, "-c", `if (: > "$1/.git/probe") 2>/dev/null; then exit 3; fi; : > "$1/ok"`, "sh", dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{dir}, Mount: true}
	waitc, err := b.startInNamespace(cmd, spec, Plan(spec))
	if err != nil {
		return err
	}
	err = <-waitc
	_, okErr := os.Stat(filepath.Join(dir, "ok"))
	switch {
	case err != nil:
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(out.String()))
	case okErr != nil:
		return fmt.Errorf("the probe could not write its workspace")
	}
	if _, err := os.Stat(filepath.Join(dir, GitDir, "probe")); err == nil {
		return fmt.Errorf("the probe wrote .git")
	}
	return nil
}
