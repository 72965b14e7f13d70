package lsp

import "github.com/sourcegraph/jsonrpc2"

// Codec returns the base protocol's framing (Content-Length headers, read
// case-insensitively and with a bound) for the other side of the
// protocol: olly's own language server, internal/lspserver.
func Codec() jsonrpc2.ObjectCodec { return codec{} }
