//go:build !unix

package wire

import (
	"errors"
	"net"
	"syscall"
)

// peerStillOpen cannot peek here: a connection the server closed fails
// its next request, which olly's retry policy sends again.
func peerStillOpen(net.Conn) bool { return true }

// isReset reports whether err is the server resetting the connection.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET)
}
