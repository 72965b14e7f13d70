package procs

import (
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fake replaces the runtime calls with a recorder for one test.
type fake struct {
	mu    sync.Mutex
	procs int
	calls []string
}

func useFake(t *testing.T, procs int) *fake {
	t.Helper()
	f := &fake{procs: procs}
	oldSet, oldDefault := setProcs, setDefault
	setProcs = func(n int) int {
		f.mu.Lock()
		defer f.mu.Unlock()
		prev := f.procs
		if n > 0 {
			f.calls = append(f.calls, "set")
			f.procs = n
		}
		return prev
	}
	setDefault = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, "default")
		f.procs = procs
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		setProcs, setDefault = oldSet, oldDefault
		on, users = false, 0
	})
	return f
}

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestEnable(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		cpus  int
		want  bool
		procs int
	}{
		{name: "default narrows", cpus: 4, want: true, procs: 1},
		{name: "GOMAXPROCS wins", env: map[string]string{"GOMAXPROCS": "3"}, cpus: 4, procs: 4},
		{name: "switched off", env: map[string]string{Env: "0"}, cpus: 4, procs: 4},
		{name: "other value keeps the policy", env: map[string]string{Env: "1"}, cpus: 2, want: true, procs: 1},
		{name: "one CPU: nothing to do", cpus: 1, procs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := useFake(t, tt.cpus)
			if got := enable(env(tt.env)); got != tt.want {
				t.Errorf("enable = %v, want %v", got, tt.want)
			}
			if f.procs != tt.procs {
				t.Errorf("GOMAXPROCS = %d, want %d", f.procs, tt.procs)
			}
		})
	}
}

func TestWideNests(t *testing.T) {
	f := useFake(t, 8)
	if !enable(env(nil)) {
		t.Fatal("enable = false")
	}
	a := Wide()
	if f.procs != 8 {
		t.Fatalf("in a Wide section GOMAXPROCS = %d, want 8", f.procs)
	}
	b := Wide()
	a()
	a() // a second call is ignored: b still holds the section open
	if f.procs != 8 {
		t.Fatalf("with one of two sections open GOMAXPROCS = %d, want 8", f.procs)
	}
	b()
	if f.procs != 1 {
		t.Fatalf("after the last section GOMAXPROCS = %d, want 1", f.procs)
	}
	want := []string{"set", "default", "set"}
	if diff := cmp.Diff(want, f.calls); diff != "" {
		t.Errorf("runtime calls (-want +got):\n%s", diff)
	}
}

func TestWideWithoutEnableChangesNothing(t *testing.T) {
	f := useFake(t, 8)
	Wide()()
	if len(f.calls) != 0 {
		t.Errorf("runtime calls without Enable: %v", f.calls)
	}
}

func TestWideConcurrent(t *testing.T) {
	f := useFake(t, 8)
	enable(env(nil))
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			release := Wide()
			f.mu.Lock()
			p := f.procs
			f.mu.Unlock()
			if p != 8 {
				t.Errorf("inside a section GOMAXPROCS = %d, want 8", p)
			}
			release()
		})
	}
	wg.Wait()
	if f.procs != 1 || users != 0 {
		t.Errorf("after all sections: GOMAXPROCS = %d, users = %d; want 1, 0", f.procs, users)
	}
}

// TestRuntime runs the policy against the real runtime.
func TestRuntime(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS is set: the runtime's default is not what this test compares with")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2 to see a change")
	}
	def := runtime.GOMAXPROCS(0)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		on, users = false, 0
		runtime.SetDefaultGOMAXPROCS()
	})
	if !enable(env(nil)) {
		t.Fatal("enable = false")
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("after Enable GOMAXPROCS = %d, want 1", n)
	}
	release := Wide()
	if n := runtime.GOMAXPROCS(0); n != def {
		t.Errorf("in Wide GOMAXPROCS = %d, want the default %d", n, def)
	}
	release()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("after Wide GOMAXPROCS = %d, want 1", n)
	}
	Disable()
	if n := runtime.GOMAXPROCS(0); n != def {
		t.Errorf("after Disable GOMAXPROCS = %d, want the default %d", n, def)
	}
}

func TestDisableInsideWide(t *testing.T) {
	f := useFake(t, 4)
	enable(env(nil))
	release := Wide()
	Disable()
	release()
	if f.procs != 4 {
		t.Errorf("a section ending after Disable left GOMAXPROCS = %d, want 4", f.procs)
	}
	Wide()()
	if f.procs != 4 {
		t.Errorf("Wide after Disable left GOMAXPROCS = %d, want 4", f.procs)
	}
}
