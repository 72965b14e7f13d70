package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// FileURI turns an absolute path into a file:// URI, percent-encoding what
// a URI path may not hold (spaces, '#', '?', non-ASCII).
func FileURI(abs string) DocumentURI {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/…
	}
	return DocumentURI((&url.URL{Scheme: "file", Path: p}).String())
}

// Path turns a file:// URI back into a cleaned absolute path. Servers
// encode URIs in their own ways (gopls and VS Code differ on ':' and
// case), so olly compares paths, never URI strings.
func (u DocumentURI) Path() (string, error) {
	parsed, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("document URI %q: %w", u, err)
	}
	if parsed.Scheme != "file" {
		return "", fmt.Errorf("document URI %q is not a file:// URI", u)
	}
	p := parsed.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}
