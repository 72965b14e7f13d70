package agent

import (
	"bytes"
	"encoding/json"
)

// dedupe finds tool calls that repeat an earlier call with the same name
// and arguments (seed 000, "Duplicate Tool Call Detection"): within a
// response, and across the previous two iterations. Models that lose track
// re-read the same file or re-run the same search over and over.
//
// A call that may change something (a write, a command, any tool not known
// to be read-only) ends the memory before it: after a write, reading the
// file again is legitimate. The memory is the calls since the last change,
// within the window of two iterations.
type dedupe struct {
	// recent are the signatures remembered from earlier iterations, most
	// recent first; at most two iterations.
	recent []map[string]bool
}

// readOnly reports whether a tool never changes the workspace, so that
// repeating a call with the same arguments gives the same answer.
func readOnly(name string) bool {
	switch name {
	case "read_file", "list_files", "find_files", "search_workspace", "get_diagnostics",
		"get_document_symbols", "find_definition", "find_references", "find_implementations",
		"find_symbol", "get_hover_info", "get_call_hierarchy", "get_type_hierarchy", "run_subagent":
		return true
	}
	return false
}

// plan marks the calls that repeat an earlier one, and returns the calls'
// signatures for remember (computed once: each parses the arguments).
// Calls with a problem (they will not run) are not considered.
func (d *dedupe) plan(calls []call) (dup []bool, sigs []string) {
	dup, sigs = make([]bool, len(calls)), make([]string, len(calls))
	seen := map[string]bool{}
	for _, m := range d.recent {
		for s := range m {
			seen[s] = true
		}
	}
	for i, c := range calls {
		if c.problem != "" {
			continue
		}
		sig := signature(c.Name, c.Arguments)
		sigs[i] = sig
		if seen[sig] {
			dup[i] = true
			continue
		}
		if !readOnly(c.Name) {
			seen = map[string]bool{}
		}
		seen[sig] = true
	}
	return dup, sigs
}

// remember records the calls that ran this iteration; sigs are plan's.
func (d *dedupe) remember(calls []call, ran []bool, sigs []string) {
	cur := map[string]bool{}
	changed := false
	for i, c := range calls {
		if !ran[i] {
			continue
		}
		if !readOnly(c.Name) {
			cur, changed = map[string]bool{}, true
		}
		sig := sigs[i]
		if sig == "" { // a call plan did not consider
			sig = signature(c.Name, c.Arguments)
		}
		cur[sig] = true
	}
	if changed || len(d.recent) == 0 {
		d.recent = []map[string]bool{cur}
		return
	}
	d.recent = []map[string]bool{cur, d.recent[0]}
}

// signature identifies a call: its name and its arguments in canonical
// form (keys sorted, no spaces), so {"a":1,"b":2} and { "b": 2, "a": 1 }
// are the same call.
func signature(name string, args json.RawMessage) string {
	return name + "\x00" + string(canonicalJSON(args))
}

func canonicalJSON(raw json.RawMessage) []byte {
	if b, ok := canonicalFlat(raw); ok {
		return b
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return bytes.TrimSpace(raw)
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return bytes.TrimSpace(raw)
	}
	return b
}
