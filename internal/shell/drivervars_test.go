package shell

import (
	"regexp"
	"strings"
	"testing"
)

// TestDriverVariablesAreAssignedAfterASource: every variable of olly's
// that the driver assigns is in __olly_vars (assigned once after each
// state is sourced, before the B frame: a readonly one in the state ends
// bash there, TestReadonlyDriverVariableInAStateIsDropped), or is one of
// the few the driver assigns right after each source itself, or is
// readonly by design. A variable added to the loop without being added
// there fails this test.
func TestDriverVariablesAreAssignedAfterASource(t *testing.T) {
	exempt := map[string]bool{
		"__olly_d": true, "__olly_last": true, "__olly_forced": true, // assigned right after each source
		"__olly_keep": true,                     // assigned before the sync's source
		"__olly_loop": true, "__olly_ifs": true, // readonly
		"__olly_own": true, "__olly_ex": true, // set once, before any state is sourced
		"__olly_kn": true, // local
	}
	body := regexp.MustCompile(`(?s)\n__olly_vars\(\) \{\n(.*?)\n\}`).FindStringSubmatch(driverScript)
	if body == nil {
		t.Fatal("no __olly_vars in the driver")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(__olly_[a-z_]+)=`).FindAllStringSubmatch(body[1], -1) {
		listed[m[1]] = true
	}
	var code []string
	for _, line := range strings.Split(driverScript, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			code = append(code, line)
		}
	}
	text := strings.Join(code, "\n")
	assigned := regexp.MustCompile(`(?:^|[\s;({])(__olly_[a-z_]+)(?:\[[^]]*\])?=|(?:mapfile|read)\b[^\n]*?\s(__olly_[a-z_]+)\s*(?:&&|\|\||$|\n|<)|for (__olly_[a-z_]+) in`)
	seen := 0
	for _, m := range assigned.FindAllStringSubmatch(text, -1) {
		name := m[1] + m[2] + m[3]
		seen++
		if !listed[name] && !exempt[name] {
			t.Errorf("the driver assigns %s, which __olly_vars does not assign after a source", name)
		}
	}
	if seen < 20 || !listed["__olly_f"] || !listed["__olly_slot"] || !listed["__olly_req"] {
		t.Fatalf("the scan found %d assignments, __olly_vars lists %v: the patterns no longer match the driver", seen, listed)
	}
}
