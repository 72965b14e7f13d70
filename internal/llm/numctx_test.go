package llm

import "testing"

func TestNumCtx(t *testing.T) {
	tests := []struct {
		name                        string
		length, def, maxWindow, cap int
		want                        int
		from                        string
	}{
		{"the model's own length fits", 8192, 4096, 65536, 0, 8192, "model"},
		{"maxContextWindow caps a long model", 131072, 4096, 65536, 0, 65536, "agent.maxContextWindow"},
		{"a cap below maxContextWindow wins", 131072, 4096, 65536, 16384, 16384, "cap"},
		{"a cap above maxContextWindow wins too", 131072, 4096, 65536, 100000, 100000, "cap"},
		{"no cap raises past the model", 8192, 4096, 65536, 32768, 8192, "model"},
		{"unknown length: the default window", 0, 4096, 65536, 0, 4096, "model"},
	}
	for _, tt := range tests {
		got, from := NumCtx(tt.length, tt.def, tt.maxWindow, tt.cap)
		if got != tt.want || from != tt.from {
			t.Errorf("%s: NumCtx = %d (%s), want %d (%s)", tt.name, got, from, tt.want, tt.from)
		}
	}
}
