//go:build !linux

package shell

import (
	"errors"
	"os"
)

// procInfo describes a process; see proc_linux.go. Without /proc olly
// cannot see processes that left the command's process group, and stops
// commands by process group alone.
type procInfo struct {
	pid, ppid, pgid int
	start           uint64
}

var errNoProc = errors.New("listing processes needs /proc (Linux)")

func listProcs() ([]procInfo, error) { return nil, errNoProc }

func procStart(int) uint64 { return 0 }

func procAlive(int, uint64) bool { return false }

func procStartGroup(int) (uint64, int) { return 0, 0 }

func environHas(int, []byte, *[]byte) bool { return false }

// procListing reports whether processes can be listed here.
const procListing = false

func procName(int) string { return "" }

func nowTicks() uint64 { return 0 }

// pipePending cannot tell here; saying yes means olly waits for bash.
func pipePending(*os.File) bool { return true }

// outputUnread cannot tell here; saying none means olly waits for a
// command's output only eofGrace, as before.
func outputUnread(*os.File) int64 { return 0 }

// pipeHeld cannot tell here; saying held means olly waits for a command's
// output only eofGrace, as before.
func pipeHeld(*os.File) bool { return true }
