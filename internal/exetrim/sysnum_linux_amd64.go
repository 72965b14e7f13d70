//go:build !android

package exetrim

// System call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysRead        = 0
	sysClose       = 3
	sysIoctl       = 16
	sysMadvise     = 28
	sysOpenat      = 257
	sysUserfaultfd = 323
)
