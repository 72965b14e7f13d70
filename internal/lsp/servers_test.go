package lsp

import (
	"errors"
	"slices"
	"testing"
)

func TestServersWith(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		check   func(t *testing.T, s []Server)
		wantErr bool
	}{
		{name: "no entries is the built-in table", check: func(t *testing.T, s []Server) {
			if len(s) != len(DefaultServers()) {
				t.Fatalf("%d servers", len(s))
			}
		}},
		{name: "another command for a known language", entries: []string{"go=gopls -remote=auto"}, check: func(t *testing.T, s []Server) {
			g, _ := serverFor(s, "main.go")
			if g.Command != "gopls" || !slices.Equal(g.Args, []string{"-remote=auto"}) || g.Alternatives != nil {
				t.Fatalf("go server = %+v", g)
			}
		}},
		{name: "python replaced drops the alternative", entries: []string{"python=pylsp"}, check: func(t *testing.T, s []Server) {
			p, _ := serverFor(s, "x.py")
			if p.Command != "pylsp" || len(p.Alternatives) != 0 {
				t.Fatalf("python server = %+v", p)
			}
		}},
		{name: "a new language claims its endings", entries: []string{"zig .zig .ZON=zls"}, check: func(t *testing.T, s []Server) {
			z, ok := serverFor(s, "build.zon")
			if !ok || z.Language != "zig" || z.Command != "zls" {
				t.Fatalf("zig server = %+v, %v", z, ok)
			}
		}},
		{name: "a new language takes an ending from a built-in one", entries: []string{"objc .h=clangd --objc"}, check: func(t *testing.T, s []Server) {
			h, _ := serverFor(s, "x.h")
			c, _ := serverFor(s, "x.c")
			if h.Language != "objc" || c.Language != "c" {
				t.Fatalf(".h → %s, .c → %s", h.Language, c.Language)
			}
		}},
		{name: "empty command turns a language off", entries: []string{"rust="}, check: func(t *testing.T, s []Server) {
			if _, ok := serverFor(s, "main.rs"); ok {
				t.Fatal("rust still has a server")
			}
		}},
		{name: "missing equals sign", entries: []string{"gopls"}, wantErr: true},
		{name: "ending without a dot", entries: []string{"zig zig=zls"}, wantErr: true},
		{name: "no language", entries: []string{"=zls"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ServersWith(tt.entries)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestResolveAndLanguageID(t *testing.T) {
	py := DefaultServers()[1]
	look := func(name string) (string, error) {
		if name == "pylsp" {
			return "/usr/bin/pylsp", nil
		}
		return "", errors.New("not found")
	}
	r, ok := py.Resolve(look)
	if !ok || r.Command != "pylsp" || r.Path != "/usr/bin/pylsp" {
		t.Fatalf("Resolve = %+v, %v; want the pylsp alternative", r, ok)
	}
	if _, ok := py.Resolve(func(string) (string, error) { return "", errors.New("no") }); ok {
		t.Fatal("resolved with nothing on PATH")
	}
	ts, _ := serverFor(DefaultServers(), "App.TSX")
	for file, want := range map[string]string{"a.ts": "typescript", "a.tsx": "typescriptreact", "a.mjs": "javascript", "a.jsx": "javascriptreact"} {
		if got := languageID(ts, file); got != want {
			t.Errorf("languageID(%s) = %s, want %s", file, got, want)
		}
	}
	if _, ok := serverFor(DefaultServers(), "Makefile"); ok {
		t.Error("a file without an ending found a server")
	}
}
