package store

// One write per WAL frame instead of two. SQLite writes each frame of a
// commit as its 24-byte header and then the page (walWriteOneFrame), two
// pwrite(2)s; an agent step's commit writes about 7 frames, so 14 system
// calls, which cost 2–6 µs each on the virtual machines olly runs on.
// The writer connection opens the database through "olly-wal", a VFS that
// is the default one ("unix") except for WAL files: there a 24-byte write
// is held back until the next call on the file, and when that call is the
// write of the bytes right after it (the frame's page), both go out as one
// write. Any other call (a read, a sync, a truncate, a size, a file
// control, close, a write elsewhere) first writes the held header.
//
// Nothing another connection or process can see changes: a commit becomes
// visible through the WAL index (the -shm file) only after all its frames
// are written, and the last call of walWriteOneFrame is always the page
// write, which writes the header with it. A crash between the two calls
// loses the header as a crash between the two writes did; SQLite's frame
// checksums end the log before a torn frame either way.

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	walVFSName  = "olly-wal"
	walFrameHdr = 24 // bytes of a WAL frame header
)

var walVFS struct {
	once    sync.Once
	name    string  // "" when it could not be registered
	vfs     uintptr // our copy of the default VFS (C memory: SQLite does arithmetic on it)
	zName   uintptr // C string walVFSName
	base    uintptr // the default VFS
	baseOpn func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32

	mu      sync.Mutex
	methods uintptr              // WAL files' methods (C memory): base's, some wrapped
	baseTab uintptr              // the io methods table base's WAL files had
	files   map[uintptr]*walFile // open WAL files by sqlite3_file pointer

	write    func(*libc.TLS, uintptr, uintptr, int32, int64) int32
	read     func(*libc.TLS, uintptr, uintptr, int32, int64) int32
	close    func(*libc.TLS, uintptr) int32
	truncate func(*libc.TLS, uintptr, int64) int32
	sync     func(*libc.TLS, uintptr, int32) int32
	size     func(*libc.TLS, uintptr, uintptr) int32
	fcntl    func(*libc.TLS, uintptr, int32, uintptr) int32

	writes atomic.Int64 // writes to WAL files through the default VFS (for tests)
}

// writeBase writes through the default VFS.
func writeBase(tls *libc.TLS, pFile, pBuf uintptr, amt int32, off int64) int32 {
	walVFS.writes.Add(1)
	return walVFS.write(tls, pFile, pBuf, amt, off)
}

// walFile is the held header of one open WAL file.
type walFile struct {
	buf     uintptr // C memory: the header, then room for the page
	cap     int32
	pending bool  // buf[:24] holds a header not yet written
	off     int64 // where it goes
}

// walVFSNameOrDefault registers the VFS once and returns its name, or ""
// (the default VFS) when registration failed.
func walVFSNameOrDefault() string {
	walVFS.once.Do(registerWalVFS)
	return walVFS.name
}

func registerWalVFS() {
	tls := libc.NewTLS()
	defer tls.Close()
	base := sqlite3.Xsqlite3_vfs_find(tls, 0)
	if base == 0 {
		return
	}
	v := &walVFS
	v.base = base
	z, err := libc.CString(walVFSName)
	if err != nil {
		return
	}
	// Never freed: SQLite keeps a registered VFS for the process's life.
	p := libc.Xmalloc(tls, libc.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})))
	m := libc.Xmalloc(tls, libc.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_io_methods{})))
	if p == 0 || m == 0 {
		return
	}
	vfs := (*sqlite3.Tsqlite3_vfs)(cptr(p))
	*vfs = *(*sqlite3.Tsqlite3_vfs)(cptr(base))
	vfs.FzName = z
	vfs.FpNext = 0
	setFn(&vfs.FxOpen, &v.baseOpn, walOpen)
	v.vfs, v.zName, v.methods = p, z, m
	v.files = map[uintptr]*walFile{}
	if sqlite3.Xsqlite3_vfs_register(tls, p, 0) != sqlite3.SQLITE_OK {
		return
	}
	v.name = walVFSName
}

// cptr turns the address of C memory (SQLite's, never Go's) into a pointer.
func cptr(p uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), p) }

// walOpen opens through the default VFS and, for a WAL file, puts the
// wrapping methods in place.
func walOpen(tls *libc.TLS, _ uintptr, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	v := &walVFS
	rc := v.baseOpn(tls, v.base, zName, pFile, flags, pOutFlags)
	if rc != sqlite3.SQLITE_OK || flags&sqlite3.SQLITE_OPEN_WAL == 0 {
		return rc
	}
	f := (*sqlite3.Tsqlite3_file)(cptr(pFile))
	if f.FpMethods == 0 {
		return rc
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.baseTab == 0 {
		v.baseTab = f.FpMethods
		m := (*sqlite3.Tsqlite3_io_methods)(cptr(v.methods))
		*m = *(*sqlite3.Tsqlite3_io_methods)(cptr(f.FpMethods))
		setFn(&m.FxWrite, &v.write, walWrite)
		setFn(&m.FxRead, &v.read, walRead)
		setFn(&m.FxClose, &v.close, walClose)
		setFn(&m.FxTruncate, &v.truncate, walTruncate)
		setFn(&m.FxSync, &v.sync, walSync)
		setFn(&m.FxFileSize, &v.size, walFileSize)
		setFn(&m.FxFileControl, &v.fcntl, walFileControl)
	}
	if f.FpMethods != v.baseTab {
		return rc // not the table seen first: left alone
	}
	v.files[pFile] = &walFile{}
	f.FpMethods = v.methods
	return rc
}

// setFn keeps the C function pointer slot holds in *orig and puts fn there.
func setFn[F any](slot *uintptr, orig *F, fn F) {
	*orig = *(*F)(unsafe.Pointer(slot))
	*(*F)(unsafe.Pointer(slot)) = fn
}

func walFileOf(pFile uintptr) *walFile {
	walVFS.mu.Lock()
	w := walVFS.files[pFile]
	walVFS.mu.Unlock()
	return w
}

// flush writes the held header, if any.
func (w *walFile) flush(tls *libc.TLS, pFile uintptr) int32 {
	if w == nil || !w.pending {
		return sqlite3.SQLITE_OK
	}
	w.pending = false
	return writeBase(tls, pFile, w.buf, walFrameHdr, w.off)
}

// reserve makes buf hold at least n bytes, keeping its first 24.
func (w *walFile) reserve(tls *libc.TLS, n int32) bool {
	if w.cap >= n {
		return true
	}
	p := libc.Xrealloc(tls, w.buf, libc.Tsize_t(n))
	if p == 0 {
		return false
	}
	w.buf, w.cap = p, n
	return true
}

func walWrite(tls *libc.TLS, pFile, pBuf uintptr, amt int32, off int64) int32 {
	w := walFileOf(pFile)
	if w == nil {
		return writeBase(tls, pFile, pBuf, amt, off)
	}
	if w.pending {
		if off == w.off+walFrameHdr && amt > 0 && w.reserve(tls, walFrameHdr+amt) {
			libc.Xmemcpy(tls, w.buf+walFrameHdr, pBuf, libc.Tsize_t(amt))
			w.pending = false
			return writeBase(tls, pFile, w.buf, walFrameHdr+amt, w.off)
		}
		if rc := w.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	if amt == walFrameHdr && off > 0 && w.reserve(tls, walFrameHdr+4096) {
		libc.Xmemcpy(tls, w.buf, pBuf, walFrameHdr)
		w.pending, w.off = true, off
		return sqlite3.SQLITE_OK
	}
	return writeBase(tls, pFile, pBuf, amt, off)
}

func walRead(tls *libc.TLS, pFile, pBuf uintptr, amt int32, off int64) int32 {
	if rc := walFileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return walVFS.read(tls, pFile, pBuf, amt, off)
}

func walTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	if rc := walFileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return walVFS.truncate(tls, pFile, size)
}

func walSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	if rc := walFileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return walVFS.sync(tls, pFile, flags)
}

func walFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	if rc := walFileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return walVFS.size(tls, pFile, pSize)
}

func walFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	if rc := walFileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return walVFS.fcntl(tls, pFile, op, pArg)
}

func walClose(tls *libc.TLS, pFile uintptr) int32 {
	v := &walVFS
	v.mu.Lock()
	w := v.files[pFile]
	delete(v.files, pFile)
	v.mu.Unlock()
	rc := w.flush(tls, pFile)
	if w != nil && w.buf != 0 {
		libc.Xfree(tls, w.buf)
	}
	if rc2 := v.close(tls, pFile); rc == sqlite3.SQLITE_OK {
		rc = rc2
	}
	return rc
}
