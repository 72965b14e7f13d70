package config

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// validate checks a value of the key's Go type against its range, enum and
// format check.
func (e *entry) validate(v any) *problem {
	switch x := v.(type) {
	case int:
		return e.inRange(float64(x), v)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return problemf(ErrRange, "%s is not a finite number: expected %s", floatText(x), e.expect())
		}
		return e.inRange(x, v)
	case time.Duration:
		return e.inRange(float64(x)/float64(time.Millisecond), v)
	case []string:
		if (e.hasMin && float64(len(x)) < e.min) || (e.hasMax && float64(len(x)) > e.max) {
			return problemf(ErrRange, "the list has %d items: expected %s", len(x), e.expect())
		}
	case string:
		if len(e.enum) > 0 && !slices.Contains(e.enum, x) {
			return problemf(ErrEnum, "%q is not allowed: expected %s", x, e.expect())
		}
		if e.check != nil {
			if msg := e.check(x); msg != "" {
				return problemf(ErrInvalid, "%q is not valid: %s", x, msg)
			}
		}
	}
	return nil
}

func (e *entry) inRange(x float64, v any) *problem {
	if (e.hasMin && x < e.min) || (e.hasMax && x > e.max) {
		return problemf(ErrRange, "%s is out of range: expected %s", e.kind.text(v), e.expect())
	}
	return nil
}

// expect says what a valid value looks like, for error messages.
func (e *entry) expect() string {
	switch e.kind.(type) {
	case intKind:
		return "an integer" + e.rangeWords(strconv.FormatFloat)
	case floatKind:
		return "a number" + e.rangeWords(strconv.FormatFloat)
	case boolKind:
		return "true or false"
	case durationKind:
		return "a duration" + e.rangeWords(func(ms float64, _ byte, _, _ int) string {
			return formatDuration(time.Duration(ms) * time.Millisecond)
		}) + " (a number of milliseconds, or a value with a unit such as 45s or 2m)"
	case listKind:
		s := "a list such as [a, b] (or a,b in a variable or flag)"
		if e.hasMin {
			s += fmt.Sprintf(" with at least %g item(s)", e.min)
		}
		if e.hasMax {
			s += fmt.Sprintf(" with at most %g item(s)", e.max)
		}
		return s
	case serversKind:
		return "MCP servers: a mapping of NAME to {command, args, env} or {url, type: http|sse, headers}"
	case rulesKind:
		return "file rules: a mapping of glob to ask|auto (or true|false), or a list of {pattern, action}"
	}
	switch {
	case len(e.enum) > 0:
		return "one of " + strings.Join(e.enum, ", ")
	case e.checkName != "":
		return checkExpect(e.checkName)
	}
	return "a string"
}

func (e *entry) rangeWords(format func(float64, byte, int, int) string) string {
	f := func(x float64) string { return format(x, 'f', -1, 64) }
	switch {
	case e.hasMin && e.hasMax:
		return " from " + f(e.min) + " to " + f(e.max)
	case e.hasMin:
		return " of at least " + f(e.min)
	case e.hasMax:
		return " of at most " + f(e.max)
	}
	return ""
}

// checkNamed returns the format check a `check` tag names, or nil.
func checkNamed(name string) func(string) string {
	switch name {
	case "url":
		return checkURL
	case "optionalUrl":
		return func(s string) string {
			if s == "" {
				return ""
			}
			return checkURL(s)
		}
	case "keepAlive":
		return checkKeepAlive
	case "absPath":
		return checkAbsPath
	}
	return nil
}

func checkExpect(name string) string {
	switch name {
	case "url":
		return "an http:// or https:// URL such as http://localhost:11434"
	case "optionalUrl":
		return "an http:// or https:// URL, or empty"
	case "keepAlive":
		return "a duration such as 5m or 30m, a number of seconds, -1 (for ever), 0 (unload at once), or empty (server default)"
	case "absPath":
		return "an absolute path, or empty"
	}
	return "a string"
}

func checkURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "expected " + checkExpect("url") + " (" + err.Error() + ")"
	case u.Scheme != "http" && u.Scheme != "https":
		return "expected " + checkExpect("url") + " (the scheme must be http or https)"
	case u.Host == "":
		return "expected " + checkExpect("url") + " (no host)"
	}
	return ""
}

// checkKeepAlive accepts what Ollama's keep_alive accepts: a Go duration or
// a number of seconds; negative keeps the model loaded for ever.
func checkKeepAlive(s string) string {
	if s == "" {
		return ""
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ""
	}
	if _, err := time.ParseDuration(s); err == nil {
		return ""
	}
	return "expected " + checkExpect("keepAlive")
}

func checkAbsPath(s string) string {
	if s == "" || filepath.IsAbs(s) {
		return ""
	}
	hint := ""
	if strings.HasPrefix(s, "~") {
		hint = "; ~ is not expanded, write the full path"
	}
	return "expected an absolute path (relative paths would depend on where olly starts)" + hint
}
