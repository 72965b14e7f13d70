package agent

import "strings"

// taskComplete is the completion signal the model writes when it is done.
const taskComplete = "[TASK_COMPLETE]"

// taskStripper removes [TASK_COMPLETE] (any case) from streamed thinking as
// it arrives; its output adds up to toolcall.StripTaskComplete of the whole
// text, for any split. (Streamed answer text goes through toolcall.Filter,
// which does the same and also hides tool-call markup.)
//
// Removing one signal can join its neighbours into another
// ("[TASK[TASK_COMPLETE]_COMPLETE]"), so held text is a stack of pieces,
// each starting at a '[' and each a proper prefix of the signal: a piece
// completed at the top is removed, and the piece below continues. As soon
// as the top piece stops being a prefix, nothing held can become the
// signal any more and all of it is released. Each byte is held and
// released once.
type taskStripper struct {
	held   []byte
	starts []int // where the pieces start in held
}

// Write returns the part of delta that can be shown now.
func (s *taskStripper) Write(delta string) string {
	var out []byte
	for i := 0; i < len(delta); {
		if len(s.held) == 0 {
			k := strings.IndexByte(delta[i:], '[')
			if k < 0 {
				if out == nil {
					return delta[i:]
				}
				return string(append(out, delta[i:]...))
			}
			out = append(out, delta[i:i+k]...)
			i += k
		}
		c := delta[i]
		i++
		if c == '[' {
			s.starts = append(s.starts, len(s.held))
		}
		s.held = append(s.held, c)
		top := s.held[s.starts[len(s.starts)-1]:]
		switch {
		case len(top) == len(taskComplete) && strings.EqualFold(string(top), taskComplete):
			s.held = s.held[:s.starts[len(s.starts)-1]]
			s.starts = s.starts[:len(s.starts)-1]
		case !strings.EqualFold(string(top), taskComplete[:len(top)]):
			out = append(out, s.held...)
			s.held, s.starts = s.held[:0], s.starts[:0]
		}
	}
	return string(out)
}

// Flush ends the text. Held pieces at the end that begin the signal are
// dropped (seed rule: the signal may have been cut off); what is below
// them is released.
func (s *taskStripper) Flush() string {
	for len(s.starts) > 0 {
		last := s.starts[len(s.starts)-1]
		if !strings.EqualFold(string(s.held[last:]), taskComplete[:len(s.held)-last]) {
			break
		}
		s.held, s.starts = s.held[:last], s.starts[:len(s.starts)-1]
	}
	out := string(s.held)
	s.held, s.starts = s.held[:0], s.starts[:0]
	return out
}
