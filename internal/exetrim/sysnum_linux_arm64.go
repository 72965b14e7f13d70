//go:build !android

package exetrim

// System call numbers (include/uapi/asm-generic/unistd.h).
const (
	sysIoctl       = 29
	sysOpenat      = 56
	sysClose       = 57
	sysRead        = 63
	sysMadvise     = 233
	sysUserfaultfd = 282
)
