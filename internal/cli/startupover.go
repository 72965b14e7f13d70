package cli

import (
	"log/slog"
	"path/filepath"

	"github.com/olly-agent/olly/internal/exetrim"
	"github.com/olly-agent/olly/internal/exewarm"
)

// startUpOver is called by a mode (print, rpc) when its start-up is over
// (settings, the database, the app, the session): it drops the
// executable's pages only start-up used, as main did for package
// initialisation's (internal/exetrim; peak RSS in docs/performance.md),
// and maps back at once the pages the mode's last run used, instead of one
// fault at a time (internal/exewarm, record "exe-pages-"+mode in the state
// folder; "exewarm beyond print mode" in docs/performance.md). Call the
// function it returns when the mode's loop ends: it saves the record when
// there was none to use.
func startUpOver(stateDir, mode string, logger *slog.Logger) (end func()) {
	exetrim.Trim()
	warm := exewarm.Start(filepath.Join(stateDir, "exe-pages-"+mode))
	return func() {
		if err := warm.End(); err != nil {
			logger.Debug("exewarm: not saved", "err", err)
		}
	}
}
