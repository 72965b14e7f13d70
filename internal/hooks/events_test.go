package hooks

import (
	"context"
	"strings"
	"testing"
)

// TestSessionStartMatchesSource: a SessionStart hook's matcher is matched
// against the source, and the source is in its input.
func TestSessionStartMatchesSource(t *testing.T) {
	r, _ := runner(t, SessionStart, "resume|compact", `in=$(cat); case "$in" in *'"source":"resume"'*) echo resumed;; *'"source":"compact"'*) echo compacted;; esac`, 0)
	for source, want := range map[string]string{SourceStartup: "", SourceResume: "resumed", SourceCompact: "compacted", SourceClear: ""} {
		block, extra, runs := r.PromptSubmitted(context.Background(), "s", source, "hi")
		if block != "" || extra != want {
			t.Errorf("source %s: block %q, context %q, want %q", source, block, extra, want)
		}
		if ran := len(runs) == 1; ran != (want != "") {
			t.Errorf("source %s: %d runs", source, len(runs))
		}
	}
	if _, _, runs := r.PromptSubmitted(context.Background(), "s", "", "hi"); len(runs) != 0 {
		t.Errorf("no source ran %d SessionStart hooks", len(runs))
	}
}

// TestPreCompactContract: PreCompact hooks get the trigger and the
// instructions, match on the trigger, and cannot block (exit 2 is shown
// only; stdout is not context).
func TestPreCompactContract(t *testing.T) {
	r, _ := runner(t, PreCompact, "manual", `in=$(cat); echo "$in" | grep -q '"trigger":"manual"' && echo "$in" | grep -q '"custom_instructions":"keep names"' && { echo 'saw it' >&2; exit 2; }; exit 1`, 0)
	runs := r.Compacting(context.Background(), "s", TriggerManual, "keep names")
	if len(runs) != 1 || runs[0].Blocked || runs[0].ExitCode != 2 || runs[0].Reason != "saw it" || runs[0].Event != PreCompact {
		t.Fatalf("manual: %+v", runs)
	}
	if runs := r.Compacting(context.Background(), "s", TriggerAuto, ""); len(runs) != 0 {
		t.Fatalf("a manual-only hook ran on auto: %+v", runs)
	}
	res := r.RunMatching(context.Background(), PreCompact, "s", TriggerManual, map[string]any{"trigger": "manual"})
	if res.Blocked || res.Context != "" {
		t.Fatalf("PreCompact result = %+v", res)
	}
	out, _ := runner(t, PreCompact, "", `echo '{"decision":"block","reason":"no"}'`, 0)
	if res := out.RunMatching(context.Background(), PreCompact, "s", TriggerAuto, nil); res.Blocked {
		t.Fatalf("a JSON block stopped a compaction: %+v", res)
	}
}

// TestSubagentStopContract: exit 2 (or a JSON block) keeps the sub-agent
// going with the reason; continue:false lets it end, as for Stop; the
// input says whether a hook already kept it going.
func TestSubagentStopContract(t *testing.T) {
	cases := []struct {
		name, command string
		active        bool
		want          string
	}{
		{"exit 2 blocks", `echo 'not yet' >&2; exit 2`, false, "not yet"},
		{"JSON block", `echo '{"decision":"block","reason":"run the tests"}'`, false, "run the tests"},
		{"continue false lets it end", `echo '{"continue":false,"stopReason":"enough"}'`, false, ""},
		{"stop_hook_active", `in=$(cat); case "$in" in *'"stop_hook_active":true'*) exit 0;; esac; echo again >&2; exit 2`, true, ""},
		{"exit 0", `exit 0`, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := runner(t, SubagentStop, "", tc.command, 0)
			reason, runs := r.SubagentStopping(context.Background(), "s", tc.active)
			if reason != tc.want || len(runs) != 1 || runs[0].Event != SubagentStop || runs[0].Blocked != (tc.want != "") {
				t.Fatalf("reason %q, runs %+v; want %q", reason, runs, tc.want)
			}
		})
	}
	// A Stop hook is not a SubagentStop hook.
	r, _ := runner(t, Stop, "", `exit 2`, 0)
	if reason, runs := r.SubagentStopping(context.Background(), "s", false); reason != "" || len(runs) != 0 {
		t.Fatalf("a Stop hook ran for a sub-agent: %q %+v", reason, runs)
	}
}

func TestNewEventsParse(t *testing.T) {
	for _, ev := range []string{PreCompact, SubagentStop} {
		hs, warns, err := Parse([]byte(settings(ev, "", "true", 0)), "f.json", false)
		if err != nil || len(warns) != 0 || len(hs) != 1 || hs[0].Event != ev {
			t.Errorf("%s: %+v %q %v", ev, hs, warns, err)
		}
	}
	_, warns, _ := Parse([]byte(settings("Notification", "", "true", 0)), "f.json", false)
	if len(warns) != 1 || !strings.Contains(warns[0], "PreCompact, SubagentStop") {
		t.Errorf("unknown event warning: %q", warns)
	}
}
