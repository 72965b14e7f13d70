package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// styles are the TUI's colours, picked for the terminal's background
// (light or dark) and downsampled by Bubble Tea to the terminal's colour
// profile, so they read on both and on 16-colour terminals.
type styles struct {
	dark bool

	user, head, muted, accent, ok, bad, warn, info lipgloss.Style
	critical, high, medium                         lipgloss.Style
	add, del, hunk                                 lipgloss.Style
	addBg, delBg                                   lipgloss.Style
	card, panel, status, selected, key             lipgloss.Style
}

func newStyles(dark bool) styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	fg := func(light, dark string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(light, dark)) }
	border := c("#9CA3AF", "#4B5563")
	return styles{
		dark:     dark,
		user:     fg("#1D4ED8", "#93C5FD").Bold(true),
		head:     fg("#6D28D9", "#C4B5FD").Bold(true),
		muted:    fg("#6B7280", "#9CA3AF"),
		accent:   fg("#0E7490", "#67E8F9"),
		ok:       fg("#15803D", "#86EFAC"),
		bad:      fg("#B91C1C", "#FCA5A5"),
		warn:     fg("#B45309", "#FCD34D"),
		info:     fg("#1F2937", "#E5E7EB"),
		critical: fg("#FFFFFF", "#FFFFFF").Background(c("#B91C1C", "#991B1B")).Bold(true),
		high:     fg("#B91C1C", "#FCA5A5").Bold(true),
		medium:   fg("#B45309", "#FCD34D").Bold(true),
		add:      fg("#15803D", "#86EFAC"),
		del:      fg("#B91C1C", "#FCA5A5"),
		hunk:     fg("#0E7490", "#67E8F9"),
		addBg:    lipgloss.NewStyle().Background(c("#DCFCE7", "#13291C")),
		delBg:    lipgloss.NewStyle().Background(c("#FEE2E2", "#301515")),
		card:     lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("#B45309", "#FCD34D")).Padding(0, 1),
		panel:    lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(border).Padding(0, 1),
		status:   fg("#374151", "#D1D5DB"),
		selected: lipgloss.NewStyle().Reverse(true),
		key:      fg("#0E7490", "#67E8F9").Bold(true),
	}
}

// severity styles an approval's severity label.
func (s styles) severity(sev string) lipgloss.Style {
	switch sev {
	case "critical":
		return s.critical
	case "high":
		return s.high
	case "medium":
		return s.medium
	}
	return s.muted
}
