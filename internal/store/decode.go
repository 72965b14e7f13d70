package store

import "database/sql"

// arenaChunk is how many payload bytes one allocation of an eventDecoder
// holds: replaying a session copies its payloads into a few large blocks
// instead of allocating each one (twice, through database/sql) on its own.
const arenaChunk = 256 << 10

// eventDecoder reads event rows (eventCols) for one query: the payloads go
// into shared blocks, each payload capped to its own length so that
// appending to one can never write into the next, and the few distinct
// type names are stored once.
type eventDecoder struct {
	session string
	// The scan targets, reused row after row (pointers to locals would
	// move each row's variables to the heap).
	seq, parent, turn, at int64
	typ, payload          sql.RawBytes
	arena                 []byte
	types                 map[string]string
}

func newEventDecoder(session string) *eventDecoder {
	return &eventDecoder{session: session, types: map[string]string{}}
}

// decode scans the current row of rows.
func (d *eventDecoder) decode(rows *sql.Rows) (EventRecord, error) {
	if err := rows.Scan(&d.seq, &d.parent, &d.turn, &d.typ, &d.payload, &d.at); err != nil {
		return EventRecord{}, err
	}
	return EventRecord{
		Session: d.session, Seq: d.seq, ParentSeq: d.parent, Turn: int(d.turn),
		Type: d.typeName(d.typ), Payload: d.keep(d.payload), At: fromMillis(d.at),
	}, nil
}

// typeName returns the type as a string shared by every event of that type.
func (d *eventDecoder) typeName(b []byte) string {
	if t, ok := d.types[string(b)]; ok {
		return t
	}
	t := string(b)
	d.types[t] = t
	return t
}

// keep copies b (valid only until the next row) into the arena.
func (d *eventDecoder) keep(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if len(b) > arenaChunk/4 {
		return append([]byte(nil), b...) // a large one gets its own block
	}
	if cap(d.arena)-len(d.arena) < len(b) {
		d.arena = make([]byte, 0, arenaChunk)
	}
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return d.arena[start:len(d.arena):len(d.arena)]
}
