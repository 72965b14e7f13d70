// Package jsonnum holds JSON's number grammar for olly's hand-written JSON
// readers (the model clients' stream scanner, the agent's canonical tool
// arguments, the tool-call text parser), which check numbers without
// decoding them and must accept exactly what encoding/json accepts.
package jsonnum

// End returns where the JSON number at b[i:] ends, or i when b[i:] does
// not begin with one:
//
//	-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
//
// A fraction or exponent without digits ("1.", "2e+") is no number at all;
// after a leading 0 the number ends ("01" ends after the 0, and what
// follows is the caller's to refuse).
func End(b []byte, i int) int {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		j = digits(b, j)
	default:
		return i
	}
	if j < len(b) && b[j] == '.' {
		k := digits(b, j+1)
		if k == j+1 {
			return i
		}
		j = k
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		k := j + 1
		if k < len(b) && (b[k] == '+' || b[k] == '-') {
			k++
		}
		e := digits(b, k)
		if e == k {
			return i
		}
		j = e
	}
	return j
}

func digits(b []byte, j int) int {
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j
}
