package store

import (
	"os"
)

// Owner identifies the process generating in a session. Start (the
// process's start time, where the OS tells it) guards against a crashed
// process's pid being reused by an unrelated one.
type Owner struct {
	PID   int    `json:"pid"`
	Host  string `json:"host"`
	Start int64  `json:"start,omitempty"`
}

// currentOwner describes this process.
func currentOwner() Owner {
	host, _ := os.Hostname() // "" is still a consistent answer on this machine
	pid := os.Getpid()
	return Owner{PID: pid, Host: host, Start: processStart(pid)}
}

// gone reports whether o is certainly no longer running: it ran on this
// host and its process has exited (or its pid now belongs to another
// process). A process on another host cannot be checked, so it is never
// reported gone.
func (o Owner) gone(me Owner) bool {
	if o.PID <= 0 || o.Host != me.Host {
		return false
	}
	if o.PID == me.PID && (o.Start == 0 || o.Start == me.Start) {
		return false
	}
	return !processAlive(o.PID, o.Start)
}
