package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// The end-to-end test of the terminal UI: the built binary in a
// pseudo-terminal, against the scripted model server, read back through a
// terminal emulator — what a person at a terminal would see.

const termW, termH = 100, 32

// vterm is olly running in a pseudo-terminal, its output drawn by an
// emulator.
type vterm struct {
	t   *testing.T
	cmd *exec.Cmd
	pty *os.File
	// mu guards emu: its String does not lock against Write.
	mu   sync.Mutex
	emu  *vt.Emulator
	done chan struct{}
}

// Write feeds the program's output to the emulator.
func (v *vterm) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.emu.Write(p)
}

func startOlly(t *testing.T, bin string, env []string, args ...string) *vterm {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: termW, Rows: termH})
	if err != nil {
		t.Fatalf("start olly in a pty: %v", err)
	}
	v := &vterm{t: t, cmd: cmd, pty: f, emu: vt.NewEmulator(termW, termH), done: make(chan struct{})}
	go func() {
		defer close(v.done)
		_, _ = io.Copy(v, f)
	}()
	// The emulator's answers to the program's queries (background colour,
	// device attributes) go back to it, as a terminal's would.
	go func() { _, _ = io.Copy(f, v.emu) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = f.Close()
		// The emulator is not closed: its Close races with the Read of
		// the goroutine forwarding its answers (vt v0.1.0), which stays
		// parked on the emulator's empty pipe until the test binary ends.
	})
	return v
}

func (v *vterm) screen() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.emu.String()
}

func (v *vterm) send(s string) {
	v.t.Helper()
	if _, err := v.pty.Write([]byte(s)); err != nil {
		v.t.Fatalf("type %q: %v", s, err)
	}
}

// waitFor waits until the screen shows want.
func (v *vterm) waitFor(want string) string {
	v.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s := v.screen(); strings.Contains(s, want) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	v.t.Fatalf("the screen never showed %q; it shows:\n%s", want, v.screen())
	return ""
}

// settle waits until the screen stops changing.
func (v *vterm) settle() string {
	prev := v.screen()
	for i := 0; i < 100; i++ {
		time.Sleep(100 * time.Millisecond)
		s := v.screen()
		if s == prev {
			return s
		}
		prev = s
	}
	return prev
}

// quit presses ctrl+c twice and waits for olly to exit.
func (v *vterm) quit() {
	v.t.Helper()
	v.send("\x03")
	time.Sleep(100 * time.Millisecond)
	v.send("\x03")
	exited := make(chan error, 1)
	go func() { exited <- v.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			v.t.Fatalf("olly exited with %v; screen:\n%s", err, v.screen())
		}
	case <-time.After(15 * time.Second):
		v.t.Fatalf("olly did not quit on ctrl+c ctrl+c; screen:\n%s", v.screen())
	}
}

func buildOlly(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the end-to-end test builds olly")
	}
	bin := filepath.Join(t.TempDir(), "olly")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goBin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build olly: %v\n%s", err, out)
	}
	return bin
}

func TestTUIEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildOlly(t)
	srv := llmtest.New(t)
	srv.AddModel("qwen3:8b", llmtest.Caps("completion", "tools"), llmtest.ContextLength(32768))
	srv.AddModel("llava:7b", llmtest.Caps("completion", "vision"), llmtest.ContextLength(4096))
	srv.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"modify","needsWrite":true,"reasoning":"scripted"}`)))
	srv.Enqueue(
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"touch made.txt"}`)),
		llmtest.Reply(llmtest.ToolCall("write_file", `{"path":"notes.txt","content":"one\nTWO\nthree\n"}`)),
		llmtest.Reply(llmtest.Text("Made the file and capitalised two. [TASK_COMPLETE]")),
	)
	ws, home := t.TempDir(), t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"OLLY_BASE_URL=" + srv.URL(),
		// ask mode: in auto mode (the default where the sandbox works) this
		// medium command would run confined without a card to answer.
		"OLLY_APPROVAL_MODE=ask",
	}

	live := startOlly(t, bin, env, "--cwd", ws)
	live.waitFor("Ask olly to do something")
	live.send("make the file and capitalise two")
	live.send("\r")
	card := live.waitFor("Approve this command?")
	for _, want := range []string{"touch made.txt", "y approve", "n deny", "e edit"} {
		if !strings.Contains(card, want) {
			t.Errorf("the approval card lacks %q:\n%s", want, card)
		}
	}
	live.send("y")
	live.waitFor("Made the file and capitalised two.")
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "one\nTWO\nthree\n" {
		t.Fatalf("notes.txt after the turn: %q", b)
	}

	live.send("\x06") // ctrl+f: the review panel
	panel := live.waitFor("change 1 of 1")
	if !strings.Contains(panel, "notes.txt") || !strings.Contains(panel, "+TWO") {
		t.Errorf("the review panel does not show the hunk:\n%s", panel)
	}
	live.send("u") // undo the hunk
	live.waitFor("nothing left to review")
	if b, _ := os.ReadFile(notes); string(b) != "one\ntwo\nthree\n" {
		t.Errorf("notes.txt after undoing the hunk: %q", b)
	}
	live.send("\x06") // close the panel
	live.waitFor("Made the file and capitalised two.")
	seen := live.settle()
	live.quit()

	// Reopen the session: the screen is built from the stored events and
	// must be the one seen live.
	again := startOlly(t, bin, env, "--cwd", ws, "--continue")
	again.waitFor("Made the file and capitalised two.")
	reopened := again.settle()
	if reopened != seen {
		t.Errorf("the reopened session differs from the live one\n--- live:\n%s\n--- reopened:\n%s", seen, reopened)
	}
	again.quit()

	// --resume without an id opens the sessions picker; Enter opens the
	// session picked.
	picker := startOlly(t, bin, env, "--cwd", ws, "--resume")
	// The picker opens at once and fills its list when the store answers:
	// wait for the selection marker, not the header.
	picker.waitFor("Enter resumes")
	picker.waitFor("▸ ")
	picker.send("\r")
	picker.waitFor("Made the file and capitalised two.")

	// An image for a model without vision: the turn fails naming the
	// vision model the server has; the prompt is kept in the history.
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644); err != nil {
		t.Fatal(err)
	}
	picker.send("what is in @shot.png please")
	picker.send("\r")
	failed := picker.waitFor("cannot read images")
	if !strings.Contains(strings.Join(strings.Fields(failed), " "), "llava:7b") {
		t.Errorf("the vision error does not name llava:7b:\n%s", failed)
	}
	back := picker.waitFor("your prompt is back in the editor")
	if !strings.Contains(back, "› what is in @shot.png please") {
		t.Errorf("the prompt is not back in the editor:\n%s", back)
	}
	picker.quit()
	t.Logf("live screen:\n%s", seen)
}
