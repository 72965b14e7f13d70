//go:build !unix

package wire

import (
	"errors"
	"net"
	"syscall"
)

// peerStillOpen cannot peek here: a connection the server closed fails
// its next request, which olly's retry policy sends again.
func peerStillOpen(syscall.RawConn) bool { return true }

// rawConn is not needed here.
func rawConn(net.Conn) syscall.RawConn { return nil }

// isReset reports whether err is the server resetting the connection.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET)
}
