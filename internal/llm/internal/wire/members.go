package wire

// The loops every fast decoder runs over an object's members or an
// array's elements. The decoders supply only what differs between the
// chunk shapes — which keys they read into which fields — so that the
// rules for handing over to encoding/json (any syntax error, a key that
// folds to a known one, trailing data) live in one place.

// Document reads b as exactly one JSON object, calling member for each of
// its keys with the cursor at the value; only whitespace may follow the
// object.
func (s *Scanner) Document(b []byte, member func(key []byte) bool) bool {
	s.Reset(b)
	return s.Object(member) && s.End()
}

// Object reads an object, calling member for each key with the cursor at
// the value; member must consume the value and report whether it could.
// It reports false, for the caller to hand over, when the input is not an
// object, is malformed, or member reports false.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	if !s.Begin('{') {
		return false
	}
	for first := true; ; first = false {
		key, done, ok := s.NextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		if !member(key) {
			return false
		}
	}
}

// Array reads an array, calling elem with the cursor at each element;
// elem must consume it and report whether it could.
func (s *Scanner) Array(elem func() bool) bool {
	if !s.Begin('[') {
		return false
	}
	for first := true; ; first = false {
		done, ok := s.NextElem(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		}
		if !elem() {
			return false
		}
	}
}

// SkipOther skips the value of a member the decoder does not read. A key
// that equals one of known only when case is ignored is not skipped (false):
// encoding/json would read it into that field.
func (s *Scanner) SkipOther(key []byte, known ...string) bool {
	return !FoldsTo(key, known...) && s.Skip()
}

// IntTo decodes an integer (as Int) into *dst.
func (s *Scanner) IntTo(dst *int) bool {
	n, ok := s.Int()
	*dst = int(n)
	return ok
}
