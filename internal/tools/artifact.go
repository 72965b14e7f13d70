package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/shell"
)

// artifactScheme addresses the full output of a truncated terminal
// command: artifact://<file name in Env.ArtifactDir>.
const artifactScheme = "artifact://"

// artifactName recognises an artifact reference: artifact://<name>, or the
// artifact file's absolute path as the shell's notes print it. The name
// must be a plain file name, so a reference cannot leave the directory.
func artifactName(env *Env, p string) (string, bool) {
	p = strings.TrimSpace(p)
	if env.ArtifactDir == "" {
		return "", false
	}
	var name string
	switch {
	case strings.HasPrefix(p, artifactScheme):
		name = strings.TrimPrefix(p, artifactScheme)
	case filepath.IsAbs(p) && filepath.Dir(filepath.Clean(p)) == filepath.Clean(env.ArtifactDir):
		name = filepath.Base(p)
	default:
		return "", false
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.IndexByte(name, 0) >= 0 {
		return "", true // an artifact reference, but not a valid one
	}
	return name, true
}

// artifactRef is how results name an artifact file to the model.
func artifactRef(abs string) string {
	return artifactScheme + filepath.Base(abs)
}

// readArtifact pages through a command's full output. Artifacts are
// sanitized text written by olly itself, so no binary check is needed.
func (t ReadFile) readArtifact(ctx context.Context, env *Env, name string, start, end int) (*Result, error) {
	if name == "" {
		return errResult("read_file: invalid artifact reference; use the artifact://<name> path exactly as a command's result gives it."), nil
	}
	abs := filepath.Join(env.ArtifactDir, name)
	stop := start - 1 + t.MaxLines
	if end != 0 && end < stop {
		stop = end
	}
	lines, total, err := shell.ReadArtifactLines(abs, start-1, stop, t.MaxLineBytes)
	if err != nil {
		return errResult("read_file: cannot read %s%s: %v. Artifacts last only as long as the session's shell.", artifactScheme, name, err), nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if total == 0 {
		return &Result{Content: fmt.Sprintf("%s%s is empty.", artifactScheme, name)}, nil
	}
	if start > total {
		return errResult("%s%s has %d lines; startLine %d is past the end.", artifactScheme, name, total, start), nil
	}
	pg := linePage{first: start, total: total}
	size := 0
	for _, l := range lines {
		if size >= t.MaxBytes {
			break
		}
		pg.lines = append(pg.lines, l)
		pg.cutBy = append(pg.cutBy, 0)
		size += len(l) + 1
	}
	pg.limited = pg.last() < total && (end == 0 || pg.last() < end)
	return t.page(ctx, env, artifactScheme+name, event.ToolAction{Text: "Read command output"}, pg), nil
}
