package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrProtected: a write into one of olly's own folders (see WithProtected).
var ErrProtected = errors.New("olly's own folder")

// WithProtected names folders no tool may write into even when a root
// holds them — olly's settings, sessions and state (where the trust
// decisions and the session database live). A workspace opened on the
// home folder contains them all; the sandbox keeps commands out of them,
// and this keeps the file tools out. A directory allowed with Allow inside
// one of them (the session's scratch folder) stays writable. Folders that
// do not exist yet are protected by their path as given.
func WithProtected(dirs ...string) Option {
	return func(w *Workspace) {
		for _, d := range dirs {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			if real, err := w.realDir(d); err == nil {
				d = real
			}
			w.protected = append(w.protected, filepath.Clean(d))
		}
	}
}

// checkProtected refuses abs (resolved) when it lies in a protected folder
// and not in a directory allowed inside it.
func (w *Workspace) checkProtected(p string, abs string) error {
	for _, dir := range w.protected {
		fold := w.caseInsensitive(dir)
		if _, in := within(abs, dir, fold); !in {
			continue
		}
		w.mu.RLock()
		allowed := false
		for _, a := range w.allowed {
			if _, inDir := within(a.Path, dir, fold); !inDir {
				continue // an allowed folder that holds the protected one does not count
			}
			if _, ok := within(abs, a.Path, a.CaseInsensitive); ok {
				allowed = true
				break
			}
		}
		w.mu.RUnlock()
		if !allowed {
			return fmt.Errorf("cannot write %q: it is inside %s (%w: settings, sessions and trust decisions), which no tool may change; if a setting should change, ask the person to run `olly config set`", p, dir, ErrProtected)
		}
	}
	return nil
}
