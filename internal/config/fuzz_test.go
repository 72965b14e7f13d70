package config

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

var fuzzFiles = []string{
	"",
	"# comment only\n",
	typicalGlobal,
	typicalProject,
	"agent.maxIterations: 30\nagent:\n  toolTimeout: 5s\n",
	"askMode:\n  model: x\n",
	"agent.sensitiveFilePatterns:\n  - {pattern: a, action: true}\n",
	"a: &x {b: *x}\n",
	"agent: &a\n  x: *a\n",
	"agent: [\n",
	"- a\n",
	"a: 1\n---\nb: 2\n",
	"agent:\n\tmaxIterations: 3\n",
	"baseUrl: 'it''s'\nagent: {maxIterations: 3} # c\n",
}

// hangGuard crashes the fuzz worker when one input runs for seconds: Go's
// fuzzer does not report hangs, and crashing makes it save the input.
func hangGuard(input any) (stop func()) {
	tm := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("input ran for 10s: %q", input)) })
	return func() { tm.Stop() }
}

func entryAt(i uint8) *entry {
	r := keys()
	return r.entries[int(i)%len(r.entries)]
}

// FuzzLoadFile: any bytes as a settings file either load into settings that
// pass their own checks, or give errors that name the file — never a panic
// or a hang.
func FuzzLoadFile(f *testing.F) {
	for _, s := range fuzzFiles {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer hangGuard(data)()
		r := keys()
		c := newConfig(r, Paths{})
		errs, _ := c.applyFileData(r, data, "f.yaml", false)
		for _, err := range errs {
			if err.Source.Name != "f.yaml" || err.Msg == "" || err.Source.Line < 0 {
				t.Fatalf("bad error %+v", err)
			}
		}
		if len(errs) > 0 {
			return
		}
		for _, en := range c.Entries() {
			if p := en.e.validate(en.Value); p != nil {
				t.Fatalf("%s loaded an invalid value %v: %s", en.Key, en.Value, p.msg)
			}
			back, p := decodeText(en.e, en.Text())
			if p != nil || !reflect.DeepEqual(back, en.Value) {
				t.Fatalf("%s: text %q does not read back (%v, %v)", en.Key, en.Text(), back, p)
			}
		}
	})
}

// FuzzDecodeText: any text for any key is a value that passes its checks
// and prints back to itself, or a problem.
func FuzzDecodeText(f *testing.F) {
	for i, s := range []string{"25", "45s", "-1", "a,b", "[a, b]", `{"**/*": true}`, "true", "0.5", "http://x:1", "/abs", "", "1e400"} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, idx uint8, text string) {
		defer hangGuard(text)()
		e := entryAt(idx)
		v, p := decodeText(e, text)
		if p != nil {
			if p.msg == "" {
				t.Fatal("empty problem")
			}
			return
		}
		back, p := decodeText(e, e.kind.text(v))
		if p != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("%s: %q → %v → %q does not read back: %v", e.key, text, v, e.kind.text(v), p)
		}
	})
}

// FuzzSetInData: setting a valid value into any file either fails cleanly
// or gives a file where the key holds exactly that value and — checked
// inside setInData — nothing else changed.
func FuzzSetInData(f *testing.F) {
	for i, s := range fuzzFiles {
		f.Add([]byte(s), uint8(i), "7")
		f.Add([]byte(s), uint8(i), "a,b")
	}
	f.Fuzz(func(t *testing.T, data []byte, idx uint8, text string) {
		defer hangGuard(data)()
		e := entryAt(idx)
		v, p := decodeText(e, text)
		if p != nil {
			return
		}
		out, err := setInData(data, e.key, e.kind.toNode(v))
		if err != nil {
			return
		}
		doc, perr := parseDocument(out, "")
		if perr != nil || doc == nil {
			t.Fatalf("output does not parse: %v\n%s", perr, out)
		}
		occ, err := findKey(resolveAlias(doc.Content[0]), e.key)
		if err != nil || len(occ) != 1 {
			t.Fatalf("key written %d times (%v):\n%s", len(occ), err, out)
		}
		got, p := decodeNode(e, resolveAlias(occ[0].parent.Content[occ[0].i+1]))
		if p != nil || !reflect.DeepEqual(got, v) {
			t.Fatalf("key holds %v (%v), want %v:\n%s", got, p, v, out)
		}
		r := keys()
		if errs, _ := newConfig(r, Paths{}).applyFileData(r, data, "", false); len(errs) == 0 {
			if errs, _ := newConfig(r, Paths{}).applyFileData(r, out, "", false); len(errs) > 0 {
				t.Fatalf("a clean file became invalid: %v\nbefore:\n%s\nafter:\n%s", errs[0], data, out)
			}
		}
		removed, rerr := unsetRoundTrip(out, e.key)
		if errors.Is(rerr, errUnsafeEdit) {
			return // refused, file untouched: acceptable for odd YAML
		}
		if rerr != nil || !removed {
			t.Fatalf("unset after set: %v %v\n%s", removed, rerr, out)
		}
	})
}

func unsetRoundTrip(data []byte, key string) (bool, error) {
	out, removed, err := unsetInData(data, key)
	if err != nil || !removed {
		return removed, err
	}
	if n := countKey(out, key); n != 0 {
		return false, nil
	}
	return true, nil
}
