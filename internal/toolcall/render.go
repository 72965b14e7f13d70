package toolcall

import (
	"fmt"
	"strings"
)

// FormatCall writes one call in a dialect, as a model trained on it would:
// the example the system prompt shows a model without native tools. args
// is a JSON object; its members keep their order. The dialect "" is olly's
// own <tool_call> JSON (FormatXML). Extract reads what FormatCall writes
// back as the same call (tested for every dialect), except that the
// dialects that write values as element text (function, glm, invoke) give
// numbers and booleans back as strings.
func FormatCall(f Format, name string, args []byte) (string, error) {
	v, repaired := parseObject(string(args))
	if v == nil || repaired {
		return "", fmt.Errorf("format a %s call: the arguments are not a JSON object", name)
	}
	var b strings.Builder
	switch f {
	case "", FormatXML:
		b.WriteString(tagOpen + `{"name": `)
		writeSpaced(&b, &value{kind: kindString, str: name})
		b.WriteString(`, "arguments": `)
		writeSpaced(&b, v)
		b.WriteString("}" + tagClose)
	case FormatBare:
		b.WriteString(`{"name": `)
		writeSpaced(&b, &value{kind: kindString, str: name})
		b.WriteString(`, "arguments": `)
		writeSpaced(&b, v)
		b.WriteString("}")
	case FormatBracket:
		b.WriteString(bracketMarker + `[{"name": `)
		writeSpaced(&b, &value{kind: kindString, str: name})
		b.WriteString(`, "arguments": `)
		writeSpaced(&b, v)
		b.WriteString("}]")
	case FormatBracketArgs:
		b.WriteString(bracketMarker + name + bracketArgs)
		writeSpaced(&b, v)
	case FormatDeepSeek, FormatKimi:
		d, header := sectionDialects[0], name // DeepSeek V3.1's layout
		if f == FormatKimi {
			d, header = sectionDialects[2], "functions."+name+":0"
		}
		b.WriteString(d.begin + d.callBegin + header + d.sep)
		writeSpaced(&b, v)
		b.WriteString(d.callEnd + d.end)
	case FormatFunction:
		b.WriteString(tagOpen + "\n" + tagFunction + name + ">\n")
		for i, k := range v.keys {
			b.WriteString("<parameter=" + k + ">\n" + elementText(v.elems[i]) + "\n</parameter>\n")
		}
		b.WriteString("</function>\n" + tagClose)
	case FormatGLM:
		b.WriteString(tagOpen + name + "\n")
		for i, k := range v.keys {
			b.WriteString(tagArgKey + k + tagArgKeyEnd + "\n" + tagArgValue + elementText(v.elems[i]) + tagArgValueEnd + "\n")
		}
		b.WriteString(tagClose)
	case FormatInvoke:
		b.WriteString(tagFunctionCalls + "\n" + `<invoke name="` + name + `">` + "\n")
		for i, k := range v.keys {
			b.WriteString(`<parameter name="` + k + `">` + elementText(v.elems[i]) + "</parameter>\n")
		}
		b.WriteString(tagInvokeEnd + "\n" + tagFunctionCallsEnd)
	case FormatToolCode:
		b.WriteString(fenceTicks + "tool_code\n" + name + "(")
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=")
			writePython(&b, v.elems[i])
		}
		b.WriteString(")\n" + fenceTicks)
	default:
		return "", fmt.Errorf("format a %s call: unknown dialect %q", name, f)
	}
	return b.String(), nil
}

// writeSpaced writes v as JSON with a space after each ':' and ',', as
// models are shown JSON in their training data.
func writeSpaced(b *strings.Builder, v *value) { writeLiteral(b, v, false) }

// writePython writes v as a Python literal (Gemma's tool_code).
func writePython(b *strings.Builder, v *value) { writeLiteral(b, v, true) }

// writeLiteral writes v spaced as writeSpaced says; python spells true,
// false and null as Python does. A JSON string is a Python string literal
// with the same meaning (appendString writes only \" \\ \n \r \t and
// \u00XX escapes), so strings and numbers are the same in both.
func writeLiteral(b *strings.Builder, v *value, python bool) {
	switch {
	case v.kind == kindObject || v.kind == kindArray:
		open, close := "{", "}"
		if v.kind == kindArray {
			open, close = "[", "]"
		}
		b.WriteString(open)
		for i, e := range v.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if v.kind == kindObject {
				b.Write(appendString(nil, v.keys[i]))
				b.WriteString(": ")
			}
			writeLiteral(b, e, python)
		}
		b.WriteString(close)
	case python && v.kind == kindLiteral:
		b.WriteString(map[string]string{"true": "True", "false": "False", "null": "None"}[v.str])
	default:
		b.Write(v.appendJSON(nil))
	}
}

// elementText is a value as the element-text dialects write it: a string
// as it is, anything else as JSON.
func elementText(v *value) string {
	if v.kind == kindString {
		return v.str
	}
	var b strings.Builder
	writeSpaced(&b, v)
	return b.String()
}
