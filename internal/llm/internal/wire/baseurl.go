package wire

import (
	"fmt"
	"net/url"
	"strings"
)

// NormalizeBaseURL turns what a person typed into a server root: spaces and
// trailing slashes trimmed, "http://" added when there is no scheme, and an
// API prefix (suffix, e.g. "/api" or "/v1") dropped so that the clients can
// append their own paths. example is a valid address for the error message.
func NormalizeBaseURL(raw, suffix, example string) (string, error) {
	s := strings.TrimSpace(raw)
	bad := func(why string) error {
		return fmt.Errorf("invalid base URL %q: %s; a valid one looks like %s", raw, why, example)
	}
	if s == "" {
		return "", bad("it is empty")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", bad(unwrapURLError(err))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", bad(fmt.Sprintf("the scheme must be http or https, not %q", u.Scheme))
	case u.Host == "" || u.Hostname() == "":
		return "", bad("it has no host")
	case u.RawQuery != "" || u.Fragment != "":
		return "", bad("it must not have a query or fragment")
	case u.User != nil:
		return "", bad("put credentials in the API key setting, not in the URL")
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if suffix != "" && strings.HasSuffix(path, suffix) {
		path = strings.TrimRight(strings.TrimSuffix(path, suffix), "/")
	}
	return u.Scheme + "://" + u.Host + path, nil
}

// unwrapURLError drops url.Error's repetition of the input.
func unwrapURLError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}
