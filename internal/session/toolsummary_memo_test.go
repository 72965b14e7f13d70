package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCallPhraseMemo: the kept last phrase is given only for the same name
// and arguments; anything else is described afresh.
func TestCallPhraseMemo(t *testing.T) {
	big := json.RawMessage(`{"path":"big.go","content":"` + strings.Repeat("x", phraseMemoMax) + `"}`)
	calls := []struct {
		name string
		args json.RawMessage
		want string
	}{
		{"read_file", json.RawMessage(`{"path":"a.go"}`), "read a.go"},
		{"read_file", json.RawMessage(`{"path":"a.go"}`), "read a.go"},
		{"write_file", json.RawMessage(`{"path":"a.go"}`), "wrote a.go"},
		{"write_file", json.RawMessage(`{"path":"b.go"}`), "wrote b.go"},
		{"run_terminal_command", json.RawMessage(`{"command":"echo step-1 >> steps.txt"}`), "ran `echo step-1 >> steps.txt`"},
		{"run_terminal_command", json.RawMessage(`{"command":"echo step-2 >> steps.txt"}`), "ran `echo step-2 >> steps.txt`"},
		{"write_file", big, "wrote big.go"},
		{"write_file", big, "wrote big.go"},
		{"read_file", nil, "called read_file"},
		{"read_file", json.RawMessage(`{"path":"a.go"}`), "read a.go"},
	}
	for i, c := range calls {
		if got := CallPhrase(c.name, c.args); got != c.want {
			t.Errorf("call %d: CallPhrase(%s, %s) = %q, want %q", i, c.name, c.args, got, c.want)
		}
	}
	if m := lastPhrase.Load(); m == nil || m.phrase != "read a.go" {
		t.Errorf("kept %+v, want the last call's phrase", m)
	}
}
