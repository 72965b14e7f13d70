package checkpoint

import "testing"

func TestNavigator(t *testing.T) {
	counts := []int{2, 0, 3, 1} // the empty file is skipped
	tests := []struct {
		name string
		from Position
		move Move
		want Position
	}{
		{"next within a file", Position{0, 0}, NextChange, Position{0, 1}},
		{"next crosses files and skips empty ones", Position{0, 1}, NextChange, Position{2, 0}},
		{"next wraps from the last change", Position{3, 0}, NextChange, Position{0, 0}},
		{"prev within a file", Position{2, 2}, PrevChange, Position{2, 1}},
		{"prev crosses back over an empty file", Position{2, 0}, PrevChange, Position{0, 1}},
		{"prev wraps from the first change", Position{0, 0}, PrevChange, Position{3, 0}},
		{"next file", Position{0, 1}, NextFile, Position{2, 0}},
		{"next file wraps", Position{3, 0}, NextFile, Position{0, 0}},
		{"prev file", Position{3, 0}, PrevFile, Position{2, 0}},
		{"prev file wraps", Position{0, 1}, PrevFile, Position{3, 0}},
		{"first", Position{2, 2}, FirstChange, Position{0, 0}},
		{"last", Position{0, 0}, LastChange, Position{3, 0}},
		{"next from nowhere starts at the first", NoPosition, NextChange, Position{0, 0}},
		{"prev from nowhere starts at the last", NoPosition, PrevChange, Position{3, 0}},
		{"next from past the end of a file", Position{0, 9}, NextChange, Position{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Step(counts, tt.from, tt.move); got != tt.want {
				t.Errorf("Step(%v, %v) = %v, want %v", tt.from, tt.move, got, tt.want)
			}
		})
	}
}

func TestChangeXOfY(t *testing.T) {
	counts := []int{2, 0, 3, 1}
	if Total(counts) != 6 {
		t.Fatalf("Total = %d", Total(counts))
	}
	// Walking forward visits every change once, numbered 1…6, and wraps.
	p := At(counts, 1)
	for want := 1; want <= 6; want++ {
		if got := Ordinal(counts, p); got != want {
			t.Fatalf("change %v is number %d, want %d", p, got, want)
		}
		if At(counts, want) != p {
			t.Fatalf("At(%d) = %v, want %v", want, At(counts, want), p)
		}
		p = Step(counts, p, NextChange)
	}
	if Ordinal(counts, p) != 1 {
		t.Errorf("did not wrap to change 1: %v", p)
	}
	for _, tt := range []struct {
		name   string
		counts []int
		p      Position
		want   Position
	}{
		{"valid stays", counts, Position{2, 1}, Position{2, 1}},
		{"hunk past the end clamps to the file's last", counts, Position{2, 7}, Position{2, 2}},
		{"an emptied file gives way to the next", counts, Position{1, 0}, Position{2, 0}},
		{"past the last file wraps", counts, Position{4, 0}, Position{0, 0}},
		{"nothing to review", []int{0, 0}, Position{0, 0}, NoPosition},
		{"no files", nil, Position{0, 0}, NoPosition},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clamp(tt.counts, tt.p); got != tt.want {
				t.Errorf("Clamp = %v, want %v", got, tt.want)
			}
		})
	}
	if Ordinal(counts, Position{1, 0}) != 0 || Ordinal(nil, Position{0, 0}) != 0 {
		t.Error("an invalid position has an ordinal")
	}
	if Step(nil, Position{0, 0}, NextChange) != NoPosition || At(nil, 1) != NoPosition {
		t.Error("an empty review has a position")
	}
}
