package store

import (
	"context"
	"encoding/json"
	"testing"
)

func TestModelCacheKeepsSettingsAcrossRefresh(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	caps := json.RawMessage(`{"known":true,"chat":true,"tools":true}`)
	if err := s.RefreshModels(ctx, []ModelInfo{
		{Name: "qwen3:8b", Size: 5e9, Family: "qwen3", Quantization: "Q4_K_M", Capabilities: caps, ContextLength: 40960},
		{Name: "llama3.2:3b", Size: 2e9, Dialect: "bare"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetModelEnabled(ctx, "llama3.2:3b", false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetModelContextCap(ctx, "qwen3:8b", 16384); err != nil {
		t.Fatal(err)
	}
	// A cap for a model not pulled yet waits for it.
	if err := s.SetModelContextCap(ctx, "future:1b", 4096); err != nil {
		t.Fatal(err)
	}
	// The server now lists qwen3 (updated), future, and no longer llama.
	if err := s.RefreshModels(ctx, []ModelInfo{
		{Name: "qwen3:8b", Size: 6e9, Family: "qwen3", Capabilities: caps, ContextLength: 40960, Dialect: "xml"},
		{Name: "future:1b", Size: 1e9},
	}); err != nil {
		t.Fatal(err)
	}
	models, err := s.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Model{}
	for _, m := range models {
		byName[m.Name] = m
	}
	cases := []struct {
		name                     string
		enabled, installed       bool
		numCtxCap, contextLength int
		size                     int64
		dialect                  string
	}{
		{"qwen3:8b", true, true, 16384, 40960, 6e9, "xml"}, // updated by the refresh
		{"llama3.2:3b", false, false, 0, 0, 2e9, "bare"},   // kept for the offline list
		{"future:1b", true, true, 4096, 0, 1e9, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := byName[tc.name]
			if !ok {
				t.Fatal("missing from the cache")
			}
			if m.Enabled != tc.enabled || m.Installed != tc.installed || m.NumCtxCap != tc.numCtxCap ||
				m.ContextLength != tc.contextLength || m.Size != tc.size || m.Dialect != tc.dialect {
				t.Errorf("got %+v", m)
			}
		})
	}
	if string(byName["qwen3:8b"].Capabilities) != string(caps) {
		t.Errorf("capabilities %s", byName["qwen3:8b"].Capabilities)
	}
	if err := s.SetModelContextCap(ctx, "qwen3:8b", 0); err != nil {
		t.Fatal(err)
	}
	models, _ = s.Models(ctx)
	for _, m := range models {
		if m.Name == "qwen3:8b" && m.NumCtxCap != 0 {
			t.Errorf("cap not cleared: %d", m.NumCtxCap)
		}
	}
	for name, err := range map[string]error{
		"negative cap": s.SetModelContextCap(ctx, "qwen3:8b", -1),
		"empty name":   s.SetModelEnabled(ctx, "", true),
		"bad caps":     s.RefreshModels(ctx, []ModelInfo{{Name: "m", Capabilities: json.RawMessage("{")}}),
		"nameless":     s.RefreshModels(ctx, []ModelInfo{{Size: 1}}),
	} {
		if err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
