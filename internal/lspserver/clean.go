package lspserver

import "strings"

// clean turns the model's middle into the text to insert: cut at a leaked
// FIM token, kept to one line unless the cursor is at a line end, without
// the text after the cursor that the model wrote again, and without
// trailing blank space. An empty result means no completion.
func clean(out string, p *prompt) string {
	for _, t := range leakTokens {
		if i := strings.Index(out, t); i >= 0 {
			out = out[:i]
		}
	}
	if !p.multiLine {
		if i := strings.IndexAny(out, "\r\n"); i >= 0 {
			out = out[:i]
		}
		// The model wrote the rest of the line again: "foo(|)" answered
		// with "a, b)".
		if rest := strings.TrimRight(p.lineRest, " \t"); rest != "" {
			out = strings.TrimSuffix(strings.TrimRight(out, " \t"), rest)
		}
		return strings.TrimRight(out, " \t")
	}
	out = cutRepeatedSuffix(out, p)
	return strings.TrimRight(out, " \t\r\n")
}

// cutRepeatedSuffix cuts a multi-line middle where it starts to repeat the
// code after the cursor: at the first of its lines that equals the
// suffix's first non-blank line, indentation included (an inner block's
// "\t}" is not the function's "}").
func cutRepeatedSuffix(out string, p *prompt) string {
	next := firstNonBlankLine(p.suffix)
	if next == "" {
		return out
	}
	lines := strings.SplitAfter(out, "\n")
	at := 0
	for i, line := range lines {
		whole := strings.TrimRight(line, " \t\r\n")
		if i == 0 {
			// The first line continues the cursor's line.
			whole = strings.TrimRight(p.linePrefix+whole, " \t\r\n")
		}
		if whole == next {
			return out[:at]
		}
		at += len(line)
	}
	return out
}

func firstNonBlankLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimRight(line, " \t\r"); strings.TrimSpace(t) != "" {
			return t
		}
	}
	return ""
}
