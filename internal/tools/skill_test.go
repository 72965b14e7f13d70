package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/skills"
	"github.com/olly-agent/olly/internal/workspace"
)

func TestSkillTool(t *testing.T) {
	dir, user := t.TempDir(), t.TempDir()
	files := map[string]string{
		filepath.Join(dir, ".olly/skills/release/SKILL.md"):     "---\nname: release\ndescription: Cut a release\n---\nRELEASE BODY: read checklist.md.\n",
		filepath.Join(dir, ".olly/skills/release/checklist.md"): "- tag it\n",
		filepath.Join(dir, "go.mod"):                            "module secret\n",
		filepath.Join(user, "skills/notes/SKILL.md"):            "---\ndescription: Keep notes\n---\nNOTES BODY\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workspace: ws}
	tool := Skill{UserDir: user}
	run := func(args map[string]any) *Result {
		res, err := tool.Run(context.Background(), env, ArgsOf(args))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(map[string]any{"name": "release"}); res.IsError || !strings.Contains(res.Content, "RELEASE BODY") || !strings.Contains(res.Content, "- checklist.md") || strings.Contains(res.Content, "description:") {
		t.Errorf("release: %+v", res)
	}
	if res := run(map[string]any{"name": "notes"}); res.IsError || !strings.Contains(res.Content, "NOTES BODY") {
		t.Errorf("notes: %+v", res)
	}
	if res := run(map[string]any{"name": "release", "file": "checklist.md"}); res.IsError || res.Content != "- tag it\n" {
		t.Errorf("file: %+v", res)
	}
	for _, args := range []map[string]any{{"name": "release", "file": "../../../go.mod"}, {"name": "release", "file": "/etc/passwd"}, {"name": "nope"}} {
		if res := run(args); !res.IsError {
			t.Errorf("%v: %+v", args, res)
		}
	}
	if res := run(map[string]any{"name": "nope"}); !strings.Contains(res.Content, "Skills: notes, release") {
		t.Errorf("unknown skill: %q", res.Content)
	}
}

// With the turn's skills in Env.Skills the tool answers from them and does
// not look on disk again.
func TestSkillToolUsesTheTurnsSkills(t *testing.T) {
	dir, given := t.TempDir(), t.TempDir()
	for p, c := range map[string]string{
		filepath.Join(dir, ".olly/skills/ondisk/SKILL.md"): "---\ndescription: on disk\n---\nDISK BODY\n",
		filepath.Join(given, "SKILL.md"):                   "---\ndescription: given\n---\nGIVEN BODY\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workspace: ws, Skills: []skills.Skill{{Name: "given", Description: "given", Dir: given}}}
	res, err := Skill{}.Run(context.Background(), env, ArgsOf(map[string]any{"name": "given"}))
	if err != nil || res.IsError || !strings.Contains(res.Content, "GIVEN BODY") {
		t.Errorf("given: %+v, %v", res, err)
	}
	res, err = Skill{}.Run(context.Background(), env, ArgsOf(map[string]any{"name": "ondisk"}))
	if err != nil || !res.IsError || !strings.Contains(res.Content, "Skills: given.") {
		t.Errorf("a skill not in Env.Skills: %+v, %v", res, err)
	}
}
