package safety

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSeverityOrderAndNames(t *testing.T) {
	if !(None < Medium && Medium < High && High < Critical) {
		t.Fatal("severities are not ordered none < medium < high < critical")
	}
	for s, want := range map[Severity]string{None: "none", Medium: "medium", High: "high", Critical: "critical", Severity(9): "severity(9)"} {
		if got := s.String(); got != want {
			t.Errorf("Severity(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

func TestSeverityJSON(t *testing.T) {
	v := Verdict{Severity: High, Findings: []Finding{{Severity: High, Rule: "git-push-force", Reason: "r", Words: []string{"push"}, Command: "git push -f"}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"severity":"high","findings":[{"severity":"high","rule":"git-push-force","reason":"r","words":["push"],"command":"git push -f"}]}`
	if string(b) != want {
		t.Errorf("json = %s\nwant   %s", b, want)
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Severity != High || back.Findings[0].Severity != High {
		t.Errorf("round trip lost the severity: %+v", back)
	}
}

func TestSeverityBadInput(t *testing.T) {
	var s Severity
	err := json.Unmarshal([]byte(`"severe"`), &s)
	if err == nil || !strings.Contains(err.Error(), "none, medium, high, critical") {
		t.Errorf("unmarshal of an unknown name: err = %v, want one listing the names", err)
	}
	if _, err := json.Marshal(Severity(7)); err == nil {
		t.Error("marshal of an out-of-range severity succeeded")
	}
	if got, err := ParseSeverity("CRITICAL"); err != nil || got != Critical {
		t.Errorf("ParseSeverity(CRITICAL) = %v, %v", got, err)
	}
}
