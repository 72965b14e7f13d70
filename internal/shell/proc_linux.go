//go:build linux

package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// procInfo is what olly needs to know about a process to decide whether it
// belongs to a command: its parent and process group (the tree and the
// group bash started), and its start time (to tell a process from a later
// one that reused its pid).
type procInfo struct {
	pid, ppid, pgid int
	start           uint64 // clock ticks after boot
}

// listProcs returns the live processes (zombies are dead: they only wait
// for their parent to collect their exit status).
func listProcs() ([]procInfo, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	procs := make([]procInfo, 0, len(names))
	buf := make([]byte, 0, 512)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		p, ok := readProc(pid, &buf)
		if ok {
			procs = append(procs, p)
		}
	}
	return procs, nil
}

// readProc reads /proc/pid/stat; ok is false for a process that is gone or
// a zombie.
func readProc(pid int, buf *[]byte) (procInfo, bool) {
	b, err := readFileInto(fmt.Sprintf("/proc/%d/stat", pid), buf, 4096)
	if err != nil {
		return procInfo{}, false
	}
	return parseStat(pid, b)
}

// parseStat parses the fields of /proc/pid/stat after the command name,
// which is in parentheses and may itself contain spaces and parentheses.
func parseStat(pid int, b []byte) (procInfo, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+1:])
	// f[0] state, f[1] ppid, f[2] pgrp, …, f[19] starttime (field 22).
	if len(f) < 20 || f[0][0] == 'Z' || f[0][0] == 'X' {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procInfo{}, false
	}
	return procInfo{pid: pid, ppid: ppid, pgid: pgid, start: start}, true
}

// procAlive reports whether pid is the process started at start and is
// neither gone nor a zombie.
func procAlive(pid int, start uint64) bool {
	var buf []byte
	p, ok := readProc(pid, &buf)
	return ok && p.start == start
}

// procStart returns the start time of pid, or 0 if it cannot be read.
func procStart(pid int) uint64 {
	start, _ := procStartGroup(pid)
	return start
}

// procStartGroup returns the start time and process group of pid, or 0, 0
// if they cannot be read.
func procStartGroup(pid int) (uint64, int) {
	var buf []byte
	b, err := readFileInto(fmt.Sprintf("/proc/%d/stat", pid), &buf, 4096)
	if err != nil {
		return 0, 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0, 0
	}
	pgid, _ := strconv.Atoi(string(f[2]))
	start, _ := strconv.ParseUint(string(f[19]), 10, 64)
	return start, pgid
}

// maxEnviron bounds how much of a process's environment is searched for
// the marker; olly puts it near the end, but environments are rarely
// larger than a few kilobytes.
const maxEnviron = 1 << 20

// environHas reports whether pid's environment has an entry starting with
// entry. Processes of other users cannot be read and never match.
func environHas(pid int, entry []byte, buf *[]byte) bool {
	b, err := readFileInto(fmt.Sprintf("/proc/%d/environ", pid), buf, maxEnviron)
	if err != nil {
		return false
	}
	for off := 0; ; {
		i := bytes.Index(b[off:], entry)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || b[i-1] == 0 {
			return true
		}
		off = i + 1
	}
}

// readFileInto reads up to limit bytes of a /proc file into *buf (procfs
// files report size 0, so os.ReadFile's size hint does not help).
func readFileInto(path string, buf *[]byte, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := (*buf)[:0]
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			*buf = b
			return nil, err
		}
	}
	*buf = b
	return b, nil
}

// nowTicks returns the time in the unit of a process's start time in
// /proc/pid/stat: clock ticks (USER_HZ, 100 on Linux) since boot, one
// tick early so a process started in this tick counts as started since.
func nowTicks() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	t := uint64(ts.Sec)*100 + uint64(ts.Nsec)/10_000_000
	return max(t, 1) - 1
}

// pipePending reports whether bytes wait unread in the pipe f belongs to.
func pipePending(f *os.File) bool { return outputUnread(f) > 0 }

// outputUnread is how many bytes wait unread in the pipe f belongs to.
func outputUnread(f *os.File) int64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return int64(n)
}

// pipeHeld reports whether a process holds the write end of the pipe (or
// FIFO) whose read end is f: the kernel reports a hang-up on f once the
// last writer let go. A closed f is held by nobody olly reads for.
func pipeHeld(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	held := false
	if rc.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		held = err != nil || n == 0 || pfd[0].Revents&unix.POLLHUP == 0
	}) != nil {
		return false
	}
	return held
}

// procListing reports whether processes can be listed here.
const procListing = true

// procName returns pid's command name, "" if it cannot be read.
func procName(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}
