//go:build unix

package wire

import (
	"errors"
	"net"
	"syscall"
)

// peerStillOpen reports whether an idle connection can take a request:
// the server has neither closed it nor sent anything unasked. It peeks
// without blocking (one recvfrom): net/http's read loop learns the same
// by keeping a read pending on every idle connection.
func peerStillOpen(rc syscall.RawConn) bool {
	if rc == nil {
		return true
	}
	open := false
	var buf [1]byte
	err := rc.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && open
}

// rawConn is c's raw connection for peerStillOpen, kept with the
// connection (asking for it allocates); nil when c has none.
func rawConn(c net.Conn) syscall.RawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// isReset reports whether err is the server resetting the connection.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
