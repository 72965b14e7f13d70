package safety

import (
	"strings"
)

// fetch: downloading is medium; what it writes is judged like any write and
// remembered, so running the file later in the same command is critical.
// Output on stdout carries tFetch, so a later `| sh` is critical.
func (a *analyzer) fetch(c *call, name string) traits {
	a.add(Medium, "network-fetch", sentence("Downloads from the network (%s)", name), c.text, c.args[0].src)
	args := c.args[1:]
	switch name {
	case "curl":
		p := parseOpts(args, optSpec{short: "AbcCdDeEFHKmoPQrTuUwxXyYzt", long: []string{
			"output", "output-dir", "user-agent", "cookie", "cookie-jar", "continue-at", "data", "data-binary", "data-raw",
			"data-urlencode", "dump-header", "referer", "cert", "form", "header", "config", "max-time", "proxy", "request",
			"user", "write-out", "upload-file", "range", "retry", "connect-timeout", "url", "json",
		}})
		dir := ""
		if d, ok := p.val("--output-dir"); ok {
			dir = d.value
		}
		wrote := false
		for _, o := range p.vals {
			if o.name == "-o" || o.name == "--output" {
				wrote = true
				if o.val.value != "-" {
					a.download(c, o.val, dir)
				}
			}
		}
		if p.has("-O", "--remote-name", "--remote-name-all") {
			wrote = true
			for _, u := range urls(p) {
				a.download(c, u, dir)
			}
		}
		if !wrote {
			return tFetch
		}
		return 0
	case "wget", "wget2":
		p := parseOpts(args, optSpec{short: "OoaPeUTtwiBlQARDIX", long: []string{
			"output-document", "output-file", "append-output", "directory-prefix", "execute", "user-agent", "timeout",
			"tries", "wait", "input-file", "base", "level", "quota", "accept", "reject", "domains", "include-directories",
			"exclude-directories", "header", "post-data", "post-file", "user", "password",
		}})
		for _, o := range p.vals {
			if o.name == "-o" || o.name == "--output-file" || o.name == "-a" || o.name == "--append-output" {
				a.judge(c.sc, c.text, o.val, pathOp{effect: effOverwrite})
			}
		}
		if out, ok := p.val("-O", "--output-document"); ok {
			if out.value == "-" {
				return tFetch
			}
			a.download(c, out, "")
			return 0
		}
		dir := ""
		if d, ok := p.val("-P", "--directory-prefix"); ok {
			dir = d.value
		}
		for _, u := range urls(p) {
			a.download(c, u, dir)
		}
		return 0
	}
	return tFetch
}

// urls returns the operands that look like URLs, with the file name the
// server would give them (the last path element).
func urls(p parsedOpts) []field {
	var out []field
	for _, f := range p.operands {
		v := f.value
		if !strings.Contains(v, "://") {
			continue
		}
		v, _, _ = strings.Cut(v, "?")
		v, _, _ = strings.Cut(v, "#")
		name := v[strings.LastIndexByte(v, '/')+1:]
		if name == "" || !strings.Contains(v[strings.Index(v, "://")+3:], "/") {
			continue
		}
		n := subField(f, name)
		n.src = f.src
		out = append(out, n)
	}
	return out
}

// download judges a file a downloader writes and remembers it.
func (a *analyzer) download(c *call, f field, dir string) {
	if dir != "" && !strings.HasPrefix(f.value, "/") {
		f.value = strings.TrimRight(dir, "/") + "/" + f.value
	}
	p := a.judge(c.sc, c.text, f, pathOp{effect: effOverwrite})
	if p.kind != placeUnknown && p.kind != placeSink && !p.contents {
		c.sc.markDownload(p.path)
	}
}
