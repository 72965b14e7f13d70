package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAppendAssignsSeqParentAndLeaf(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s := openTest(t, Options{Now: c.now})
	newSession(t, s, "a")
	var recs []*EventRecord
	for i := range 3 {
		c.advance(time.Second)
		recs = append(recs, appendText(t, s, "a", "user_message", fmt.Sprintf("message %d", i)))
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) || r.ParentSeq != int64(i) {
			t.Errorf("event %d: seq %d parent %d", i, r.Seq, r.ParentSeq)
		}
		if want := time.UnixMilli(1_700_000_000_000 + int64(i+1)*1000); !r.At.Equal(want) {
			t.Errorf("event %d at %v, want %v", i, r.At, want)
		}
	}
	sess, err := s.Session(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if sess.LeafSeq != 3 || !sess.UpdatedAt.Equal(recs[2].At) {
		t.Errorf("leaf %d updated %v", sess.LeafSeq, sess.UpdatedAt)
	}
	got, err := s.Events(ctx, "a", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 2 || got[1].Session != "a" || string(got[1].Payload) != `{"text":"message 2"}` {
		t.Errorf("Events after 1 = %+v", got)
	}
	if got, _ := s.Events(ctx, "a", 0, 1); len(got) != 1 || got[0].Seq != 1 {
		t.Errorf("Events limit 1 = %+v", got)
	}
}

func TestAppendRejects(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	cases := []struct {
		name string
		rec  *EventRecord
		want string
	}{
		{"nil", nil, "nil event"},
		{"no session", &EventRecord{Type: "x"}, "no session id"},
		{"bad type", &EventRecord{Session: "a", Type: "ToolAction"}, "snake_case"},
		{"bad payload", &EventRecord{Session: "a", Type: "x", Payload: json.RawMessage("{")}, "not valid JSON"},
		{"missing session", &EventRecord{Session: "nope", Type: "x"}, "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Append(context.Background(), tc.rec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.rec != nil && tc.rec.Seq != 0 {
				t.Errorf("failed append left seq %d", tc.rec.Seq)
			}
		})
	}
	// A failed record does not disturb the log.
	if r := appendText(t, s, "a", "x", "ok"); r.Seq != 1 {
		t.Errorf("seq after failures = %d", r.Seq)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(context.Background(), &EventRecord{Session: "a", Type: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
}

func TestAppendHonoursCancelledContext(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Either outcome is allowed for a cancelled context, but it must be
	// exact: an error means nothing was stored.
	err := s.Append(ctx, &EventRecord{Session: "a", Type: "x"})
	got, _ := s.Events(context.Background(), "a", 0, 0)
	if (err == nil) != (len(got) == 1) {
		t.Fatalf("err %v but %d events stored", err, len(got))
	}
}

// checkLog verifies a session's log is seq 1..n without gaps or
// duplicates, each event a child of the previous one, and the leaf at n.
func checkLog(t *testing.T, s *Store, session string, n int) []EventRecord {
	t.Helper()
	ctx := context.Background()
	evs, err := s.Events(ctx, session, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != n {
		t.Fatalf("%d events, want %d", len(evs), n)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.ParentSeq != int64(i) {
			t.Fatalf("event %d: seq %d parent %d", i, e.Seq, e.ParentSeq)
		}
	}
	sess, err := s.Session(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	if sess.LeafSeq != int64(n) {
		t.Fatalf("leaf %d, want %d", sess.LeafSeq, n)
	}
	return evs
}

func TestAppendConcurrentGoroutines(t *testing.T) {
	s := openTest(t)
	newSession(t, s, "a")
	newSession(t, s, "b")
	const workers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			session := []string{"a", "b"}[w%2]
			last := int64(0)
			for i := range each {
				rec := &EventRecord{Session: session, Type: "x", Payload: json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))}
				if err := s.Append(context.Background(), rec); err != nil {
					errs <- err
					return
				}
				if rec.Seq <= last {
					errs <- fmt.Errorf("worker %d: seq %d after %d", w, rec.Seq, last)
				}
				last = rec.Seq
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkLog(t, s, "a", workers/2*each)
	checkLog(t, s, "b", workers/2*each)
}

func TestAppendTwoStoresOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s1, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	s2, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	newSession(t, s1, "shared")
	const each = 150
	var wg sync.WaitGroup
	for _, s := range []*Store{s1, s2, s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := s.Append(ctx, &EventRecord{Session: "shared", Type: "x"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkLog(t, s2, "shared", 4*each)
}

func TestAppendTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	newSession(t, s, "shared")
	const each = 300
	var cmds []*exec.Cmd
	for child := range 2 {
		cmd := childCmd(t, "append", path, "shared", strconv.Itoa(child), strconv.Itoa(each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// This process appends too, while the children do.
	for range each {
		if err := s.Append(ctx, &EventRecord{Session: "shared", Type: "x", Payload: json.RawMessage(`{"child":-1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v\n%s", err, cmd.Stderr)
		}
	}
	evs := checkLog(t, s, "shared", 3*each)
	// Each writer's events are in the log in the order it wrote them.
	next := map[int]int{}
	for _, e := range evs {
		var p struct{ Child, I int }
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.Child >= 0 {
			if p.I != next[p.Child] {
				t.Fatalf("child %d: event %d at seq %d, want %d", p.Child, p.I, e.Seq, next[p.Child])
			}
			next[p.Child]++
		}
	}
	if next[0] != each || next[1] != each {
		t.Errorf("children stored %v", next)
	}
}

// childCmd re-executes the test binary in a child role.
func childCmd(t testing.TB, role string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRoleEnv+"="+role, childArgsEnv+"="+strings.Join(args, "\x1f"))
	cmd.Stderr = &strings.Builder{}
	return cmd
}
