package confined

import (
	"path/filepath"

	"github.com/olly-agent/olly/internal/workspace"
)

// Where a definition was found, in precedence order: a project's wins over
// the person's of the same name, .olly over .claude.
const (
	SourceProject = "project" // the workspace's .olly/<kind>/
	SourceClaude  = "claude"  // the workspace's .claude/<kind>/
	SourceUser    = "user"    // olly's configuration directory's <kind>/
)

// Place is a folder searched for definitions of one kind.
type Place struct {
	Dir, Source string
	// Scope is what files found there must stay in: the workspace for
	// a project's (workspace content is not trusted), nothing for the
	// person's own.
	Scope Scope
}

// Places lists the folders holding definitions of kind ("skills",
// "commands"), in precedence order: the workspace's .olly/<kind> and
// .claude/<kind> (ws nil: none), then userDir/<kind> (userDir "": none).
func Places(ws *workspace.Workspace, userDir, kind string) []Place {
	var out []Place
	if ws != nil {
		root := ws.Primary().Path
		in := Scope{InWorkspace: true, Workspace: ws}
		out = append(out, Place{filepath.Join(root, ".olly", kind), SourceProject, in},
			Place{filepath.Join(root, ".claude", kind), SourceClaude, in})
	}
	if userDir != "" {
		out = append(out, Place{Dir: filepath.Join(userDir, kind), Source: SourceUser})
	}
	return out
}
