package lsp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// FormatDiagnostics writes a file's diagnostics for the model, most severe
// first, then by position (the seed's formatDiagnostics), at most max of
// them: "main.go:12:5: Error: undefined: x (compiler UndeclaredName)".
// Columns count characters as a person does, using the file's text.
func FormatDiagnostics(rel string, diags []Diagnostic, mapper *Mapper, max int) string {
	sorted := slices.Clone(diags)
	slices.SortStableFunc(sorted, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(rank(a.Severity), rank(b.Severity)),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	var b strings.Builder
	for i, d := range sorted {
		if max > 0 && i == max {
			fmt.Fprintf(&b, "… and %d more (%s)\n", len(sorted)-max, countWords(sorted[max:]))
			break
		}
		line, col := int(d.Range.Start.Line)+1, int(d.Range.Start.Character)+1
		if mapper != nil {
			line, col = mapper.LineCol(d.Range.Start)
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s", rel, line, col, d.Severity, indentMessage(d.Message))
		if origin := strings.TrimSpace(d.Source + " " + string(d.Code)); origin != "" {
			fmt.Fprintf(&b, " (%s)", origin)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// rank orders severities, treating a missing one as an error.
func rank(s DiagnosticSeverity) int {
	if s == 0 {
		return int(SeverityError)
	}
	return int(s)
}

// indentMessage keeps a multi-line message under its own line.
func indentMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	return strings.ReplaceAll(msg, "\n", "\n    ")
}

// countWords summarises diagnostics by severity: "3 errors, 1 warning".
func countWords(diags []Diagnostic) string {
	counts := map[string]int{}
	var order []string
	for _, d := range diags {
		name := strings.ToLower(d.Severity.String())
		if counts[name] == 0 {
			order = append(order, name)
		}
		counts[name]++
	}
	parts := make([]string, len(order))
	for i, name := range order {
		parts[i] = Plural(counts[name], name)
	}
	return strings.Join(parts, ", ")
}

// Plural writes "1 error", "2 errors", "1 info", "2 infos".
func Plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
