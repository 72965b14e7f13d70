package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/olly-agent/olly/internal/event"
)

// JSONL writes events one per line in their wire format (docs/events.md),
// exactly as `olly -p --output json` and the RPC mode send them.
func JSONL(w io.Writer, events []event.Event) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, ev := range events {
		if err := enc.Encode(ev); err != nil {
			return fmt.Errorf("export event %d: %w", ev.Seq, err)
		}
	}
	return bw.Flush()
}
