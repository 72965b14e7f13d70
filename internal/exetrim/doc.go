// Package exetrim keeps the pages of olly's own executable that count
// towards its resident set to the ones it actually runs.
//
// olly is one 44 MB binary (the terminal and web UIs, SQLite, the MCP SDK,
// highlighting), and Linux maps the page cache of an executable
// generously: a fault on one page of text maps the 64 KiB around it
// ("fault-around"), and when the page cache holds the file in large folios
// (a fresh `go build` output does) the whole folio, up to 2 MiB, PMD-mapped.
// So package initialisation, which touches a little of nearly every
// package, made ~21–33 MiB of the binary resident before main ran, and a
// print-mode run 28–31 MiB, of which it uses a fraction.
//
// Imported by cmd/olly, the package's initialisation
// (which Go runs before the heavy packages', see below) does three things
// to the executable's read-only mappings (text, read-only data, pclntab):
//
//  1. it registers them with a userfaultfd in asynchronous write-protect
//     mode (UFFD_FEATURE_WP_ASYNC: Linux 6.7 on amd64; on arm64 write-protect
//     userfaultfd only arrived in about 6.10, and before that the setup
//     fails with EINVAL and nothing is armed). Nothing ever writes there,
//     so no fault is ever delivered and the descriptor needs no reader; the
//     registration only marks the mappings, and on a marked mapping the
//     kernel turns off fault-around and maps one base page per fault (4 KiB;
//     16 or 64 KiB on some arm64 kernels);
//  2. it marks them MADV_NOHUGEPAGE, so no fault maps 2 MiB at once;
//  3. it drops what is mapped already (MADV_DONTNEED: clean private file
//     pages; the next touch maps them back from the page cache). They are
//     the same bytes only while the executable file is not rewritten in
//     place, which can happen on NFS, 9p or virtiofs host mounts, where a
//     running executable is not write-protected; reclaim had the same risk
//     before.
//
// Trim drops the pages again, so those only an earlier phase used stop
// counting: main calls it after package initialisation, and print mode,
// the TUI, serve and rpc once their start-up (settings, the database, the
// app, the session) is over. Print mode then maps back at once the pages
// its last runs used after that point (internal/exewarm, from Spans).
//
// Only whole pages of the executable's loaded segments without write
// permission (from its program headers) are touched: never .data, .bss,
// the relocation-protected page or the heap. Pages a debugger patched
// with breakpoints are private copies MADV_DONTNEED would discard, so
// nothing is armed or dropped while /proc/self/status names a tracer
// visible in olly's PID namespace, or cannot be read or names none. A
// debugger attached from outside that namespace (from the host, to olly in
// a container) reads as TracerPid 0: its breakpoints and any code it
// patched are lost on a dropped page (debugging state, not olly's data),
// and so is a uprobe placed on olly's text from outside; OLLY_EXETRIM=0
// before starting olly avoids both. Nothing is armed either when the
// loader patched the text at start-up (DT_TEXTREL: those pages are private
// copies too). Every step is best effort: on an older kernel, where
// userfaultfd is refused with an error (a seccomp filter returning one,
// the sysctl), or off Linux amd64/arm64, nothing changes and olly runs as
// before. A seccomp filter that kills or traps the userfaultfd call
// instead ends olly during package initialisation: OLLY_EXETRIM=0 is the
// way out there. OLLY_EXETRIM=0 also turns it off for measuring against
// it. Android is left out (its older app sandboxes kill the call).
//
// This lowers what the process maps, not what the machine caches: the
// pages stay in the page cache, shared by every olly process. What it
// changes is the process's RSS and PSS (what `ps`, `top` and a maximum-RSS
// measurement report) and how much of the binary the kernel must keep
// mapped (mapped pages are reclaimed last).
//
// Init order: Go initialises, among the packages whose imports are done,
// the one first in import-path order. This package imports only unsafe
// (it makes its few system calls itself, sys_linux_*.s), so it is ready
// right after the runtime and initialises before every package outside the
// standard library — chroma's registries, bluemonday's tables, goldmark —
// whose initialisation touched most of the mapped pages. cmd/olly's
// TestExetrimInitialisesFirst checks this.
//
// The cost is page faults: one per base page used instead of one per
// 64 KiB or per folio. A print-mode run takes about 5,200 more, all before
// its first model request (the same at 20 and at 100 steps). On bare metal a fault is about a
// microsecond; in the KVM guest docs/performance.md measures on, 13–25 µs,
// so there start-up costs ~100 ms more CPU (see "Peak RSS" there). The
// sandbox helper, which only confines itself and executes a command, is
// not armed.
package exetrim
