package store

import (
	"os"
	"strconv"
	"strings"
)

// processStart returns pid's start time in clock ticks since boot (field 22
// of /proc/PID/stat), or 0 when it cannot be read.
func processStart(pid int) int64 {
	start, _, ok := procStat(pid)
	if !ok {
		return 0
	}
	return start
}

// processAlive reports whether pid is a running (not zombie) process that
// started at start (when start is known).
func processAlive(pid int, start int64) bool {
	got, state, ok := procStat(pid)
	if !ok {
		return false
	}
	if state == 'Z' || state == 'X' {
		return false // exited, not yet reaped
	}
	return start == 0 || got == start
}

// procStat reads the state and start time of pid from /proc.
func procStat(pid int) (start int64, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: the fields after it start at the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 22 (starttime) is f[19].
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, false
	}
	start, err = strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return start, f[0][0], true
}
