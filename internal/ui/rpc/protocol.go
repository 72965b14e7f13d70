package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// request is a decoded command line: its id and type, and the whole object
// for the command's own fields.
type request struct {
	id   json.RawMessage
	typ  string
	body json.RawMessage
}

// decodeRequest reads one command line. It always returns what it could
// read (the id, when it is a string or a number), so even a refused line
// is answered with its id when it had one.
func decodeRequest(line []byte) (request, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return request{}, fmt.Errorf("not a JSON object: %s; send one command object per line, like {\"type\":\"get_state\"}", jsonProblem(err))
	}
	if fields == nil {
		return request{}, errors.New("not a JSON object: null; send one command object per line, like {\"type\":\"get_state\"}")
	}
	var req request
	if raw, ok := fields["id"]; ok && !isNull(raw) {
		if !isStringOrNumber(raw) {
			return req, errors.New("field id: expected a string or a number")
		}
		req.id = compact(raw)
	}
	raw, ok := fields["type"]
	if !ok || isNull(raw) {
		return req, errors.New("missing field type: name the command, like {\"type\":\"get_state\"}")
	}
	if err := json.Unmarshal(raw, &req.typ); err != nil {
		return req, errors.New("field type: expected a string (the command's name)")
	}
	req.body = line
	return req, nil
}

// decodeBody decodes a command's fields into v, with errors that name the
// field and the type it needs.
func decodeBody(body json.RawMessage, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s", jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a decoding error for the person who wrote the
// line.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("field %s: expected %s, got %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("expected %s, got %s", jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a Go kind the way a JSON writer thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return kind
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func isStringOrNumber(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	switch c := t[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
