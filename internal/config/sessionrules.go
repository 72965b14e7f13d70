package config

import (
	"encoding/json"
	"strings"
)

// SessionFileRules checks a session's own sensitive-file rules, given in
// any form agent.sensitiveFilePatterns takes (JSON or YAML text, or a JSON
// string holding such text), and returns them as a session stores them: a
// JSON list of {pattern, action}. Blank or "null" returns JSON null, which
// clears the session's rules (the settings' apply again).
func SessionFileRules(raw []byte) (json.RawMessage, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return json.RawMessage("null"), nil
	}
	var text string
	if json.Unmarshal([]byte(t), &text) == nil {
		t = text
	}
	rules, err := ParseFileRules([]byte(t))
	if err != nil {
		return nil, err
	}
	return json.Marshal(rules)
}
