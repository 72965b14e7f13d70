//go:build unix

package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// stepShape is an agent tool step's durable events as the peer bench's
// run stores them (type, payload bytes): 12 events, no search text.
var stepShape = []struct {
	typ  string
	size int
}{
	{"assistant_message", 226}, {"token_usage", 176}, {"progress_group_start", 45},
	{"tool_action", 137}, {"approval_requested", 344}, {"approval_resolved", 95},
	{"tool_action", 137}, {"tool_action", 161}, {"tool_result", 107},
	{"progress_group_finish", 18}, {"control_message", 82}, {"control_message", 409},
}

// appendSteps appends steps agent steps to session id, each committed
// as one transaction (AppendAsync for its events, then Flush: the agent's
// barrier before the tool runs).
func appendSteps(t testing.TB, s *Store, id string, steps int) {
	t.Helper()
	ctx := context.Background()
	for range steps {
		for _, e := range stepShape {
			payload := fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", max(e.size-10, 0)))
			rec := &EventRecord{Session: id, Type: e.typ, Payload: []byte(payload)}
			if err := s.AppendAsync(ctx, rec, func(error) {}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// walFrames reads the WAL file's frame headers: the page number of each
// frame, and for each commit the number of frames it wrote.
func walFrames(t testing.TB, file string) (pages []uint32, perCommit []int) {
	t.Helper()
	b, err := os.ReadFile(file + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 32 {
		return nil, nil
	}
	pageSize := int(binary.BigEndian.Uint32(b[8:12]))
	salt := b[16:24]
	n := 0
	for off := 32; off+24+pageSize <= len(b); off += 24 + pageSize {
		h := b[off : off+24]
		if string(h[8:16]) != string(salt) {
			break // left over from before the WAL restarted
		}
		pages = append(pages, binary.BigEndian.Uint32(h[0:4]))
		n++
		if binary.BigEndian.Uint32(h[4:8]) != 0 { // a commit's last frame
			perCommit = append(perCommit, n)
			n = 0
		}
	}
	return pages, perCommit
}

// pageOwners maps the database's page numbers to the table or index
// they belong to (dbstat), read through the WAL.
func pageOwners(t testing.TB, file string) map[uint32]string {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(file, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name, pageno FROM dbstat")
	if err != nil {
		t.Fatalf("dbstat: %v", err)
	}
	defer rows.Close()
	owners := map[uint32]string{}
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			t.Fatal(err)
		}
		owners[page] = name
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return owners
}

// stepFrames appends steps steps after warm ones to a fresh store with
// checkpoints held off and returns the WAL frames per step of the
// measured steps, in all and by owner (the table or index a page belongs
// to).
func stepFrames(t testing.TB, warm, steps int) (perStep float64, byOwner map[string]float64) {
	t.Helper()
	s := openTest(t)
	s.cpBytes = 1 << 40 // no background checkpoint: the WAL keeps every frame
	newSession(t, s, "s0")
	appendSteps(t, s, "s0", warm)
	before, commitsBefore := walFrames(t, s.file)
	appendSteps(t, s, "s0", steps)
	pages, commits := walFrames(t, s.file)
	if s.checkpoints.Load() != 0 {
		t.Skip("a checkpoint ran: the WAL was restarted")
	}
	pages, commits = pages[len(before):], commits[len(commitsBefore):]
	if len(commits) != steps { // the commit delay ran out while a step queued (a loaded machine)
		t.Logf("%d commits for %d steps", len(commits), steps)
	}
	owners := pageOwners(t, s.file)
	byOwner = map[string]float64{}
	for _, p := range pages {
		name := owners[p]
		if p == 1 {
			name = "page 1 (header)"
		} else if name == "" {
			name = fmt.Sprintf("unowned page %d", p)
		}
		byOwner[name] += 1 / float64(steps)
	}
	return float64(len(pages)) / float64(steps), byOwner
}

// TestReportStepFrames writes down which pages an agent step's commit
// writes (go test -run TestReportStepFrames -v), and checks that its
// page mapping found the events' frames.
func TestReportStepFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("a report")
	}
	per, by := stepFrames(t, 50, 400)
	// The report is worth reading only if the frames were mapped to their
	// tables: each step inserts events, so their table must be among them.
	if per <= 0 || by["events"] <= 0 {
		t.Fatalf("no frame mapped to the events table (%.2f frames a step, by owner %v): the report's page mapping is broken", per, by)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("WAL frames per step commit: %.2f", per)
	for _, n := range names {
		t.Logf("  %-28s %.2f", n, by[n])
	}
}
