package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/workspace"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skill(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func TestDiscover(t *testing.T) {
	dir, user, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"evil/SKILL.md": skill("evil", "from outside", "EVIL")})
	write(t, dir, map[string]string{
		".olly/skills/release/SKILL.md":     skill("release", "Cut a release", "Project release steps."),
		".olly/skills/release/checklist.md": "- tag\n- push\n",
		".claude/skills/pdf/SKILL.md":       skill("pdf", "Work with PDF files", "Use pdftotext."),
		".claude/skills/release/SKILL.md":   skill("release", "shadowed by .olly", "CLAUDE RELEASE"),
		".olly/skills/nodesc/SKILL.md":      "---\nname: nodesc\n---\nbody",
		".olly/skills/broken/SKILL.md":      "---\nname: [\n---\n",
		".olly/skills/notaskill/README.md":  "no SKILL.md here",
	})
	write(t, user, map[string]string{
		"skills/release/SKILL.md": skill("release", "user's release", "USER RELEASE"),
		"skills/notes/SKILL.md":   "---\ndescription: Keep notes\n---\nNotes body.",
	})
	if err := os.Symlink(filepath.Join(outside, "evil"), filepath.Join(dir, ".olly", "skills", "evil")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	list, problems := Discover(ws, user)
	var got []string
	for _, s := range list {
		got = append(got, s.Name+"="+s.Source+":"+s.Description)
	}
	want := "notes=user:Keep notes|pdf=claude:Work with PDF files|release=project:Cut a release"
	if strings.Join(got, "|") != want {
		t.Errorf("skills %s, want %s", strings.Join(got, "|"), want)
	}
	var reasons []string
	for _, p := range problems {
		reasons = append(reasons, filepath.Base(filepath.Dir(p.Path))+": "+p.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, w := range []string{"no description", "not valid YAML", "out of the workspace"} {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q:\n%s", w, all)
		}
	}
	// The prompt lists names and descriptions only.
	block := Render(list)
	if !strings.Contains(block, "- release: Cut a release") || strings.Contains(block, "Project release steps") {
		t.Errorf("block:\n%s", block)
	}
	rel, _ := Find(list, "release")
	if body, err := rel.Body(); err != nil || body != "Project release steps." {
		t.Errorf("body %q, %v", body, err)
	}
	if files := rel.Files(10); strings.Join(files, ",") != "checklist.md" {
		t.Errorf("files %v", files)
	}
	if text, err := rel.ReadFile("checklist.md"); err != nil || !strings.Contains(text, "- tag") {
		t.Errorf("checklist %q, %v", text, err)
	}
	for _, bad := range []string{"../pdf/SKILL.md", "/etc/passwd", "", "nope.md"} {
		if _, err := rel.ReadFile(bad); err == nil {
			t.Errorf("ReadFile(%q) read something", bad)
		}
	}
}

// A link inside a skill's folder that leads out of it is refused.
func TestReadFileConfined(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"secret.txt": "SECRET"})
	write(t, dir, map[string]string{"s/SKILL.md": skill("s", "d", "b")})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "s", "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := Skill{Name: "s", Dir: filepath.Join(dir, "s")}
	if text, err := s.ReadFile("link.txt"); err == nil {
		t.Errorf("read %q through a link out", text)
	}
	if files := s.Files(10); len(files) != 0 {
		t.Errorf("listed %v (links are not files of the skill)", files)
	}
}
