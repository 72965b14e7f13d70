package tools

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/lsp"
)

// BenchmarkWriteFileDiagnostics measures the time from write_file to its
// result carrying gopls's diagnostics, on the fixture module: warm (gopls
// already running with the file open) and cold (gopls started by the
// write).
func BenchmarkWriteFileDiagnostics(b *testing.B) {
	needGopls(b)
	ctx := context.Background()
	b.Run("warm", func(b *testing.B) {
		env, _ := goplsEnv(b)
		orig := string(mustReadFile(b, env, "total.go"))
		writeBroken(b, ctx, env, orig, -1) // start gopls, open the file
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			writeBroken(b, ctx, env, orig, i)
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			b.StopTimer()
			ws := goFixture(b)
			m := lsp.NewManager(ws, lsp.Options{Logger: slog.New(slog.DiscardHandler)})
			env := &Env{Workspace: ws, Diagnostics: m}
			orig := string(mustReadFile(b, env, "total.go"))
			b.StartTimer()
			writeBroken(b, ctx, env, orig, i)
			b.StopTimer()
			_ = m.Close()
			b.StartTimer()
		}
	})
}

// writeBroken writes total.go with a type error (a new one each time, so
// the text changes) and checks that the result reports it.
func writeBroken(b *testing.B, ctx context.Context, env *Env, orig string, i int) {
	content := strings.Replace(orig, "var sum float64", fmt.Sprintf("var sum float64 = \"zero%d\"", i), 1)
	res, err := WriteFile{}.Run(ctx, env, ArgsOf(map[string]any{"path": "total.go", "content": content}))
	if err != nil {
		b.Fatal(err)
	}
	if !strings.Contains(res.Content, "[Auto-diagnostics]\ntotal.go:7:20: Error") {
		b.Fatalf("no diagnostics in the result:\n%s", res.Content)
	}
}
