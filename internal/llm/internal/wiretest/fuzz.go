package wiretest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// SameAsJSON checks a fast decoder against encoding/json: whenever fast
// accepts data, encoding/json must accept it too and produce exactly the
// same value. It is the body of the clients' fuzz tests of their fast paths.
func SameAsJSON[T any](t testing.TB, data []byte, fast func([]byte, *T) bool) {
	t.Helper()
	var got T
	if !fast(data, &got) {
		return
	}
	var want T
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("fast path accepted %q; encoding/json: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fast path differs on %q:\nfast %+v\nslow %+v", data, got, want)
	}
}
