package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// jsonNumber is the number grammar of RFC 8259; a YAML number that already fits it is
// copied byte for byte.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// yamlFloat is YAML 1.2's float form. yaml.v3 resolves a plain scalar such as 1e400 to
// a string when float64 cannot hold it; JSON can, so such a scalar stays a number.
var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// Convert returns the JSON form of the single YAML document in src. Mapping keys keep
// their order, aliases are expanded, and numbers keep their digits. Values JSON cannot
// hold (.inf, .nan, non-scalar keys, duplicate keys) are errors rather than silent
// changes.
func Convert(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, errors.New("yamljson: empty document")
	}
	var buf bytes.Buffer
	if err := write(&buf, &doc, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxDepth bounds alias expansion: a document whose aliases nest deeper is refused
// instead of growing without end.
const maxDepth = 1000

func write(buf *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return errors.New("yamljson: document nests too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return errors.New("yamljson: want exactly one document")
		}
		return write(buf, n.Content[0], depth+1)
	case yaml.AliasNode:
		return write(buf, n.Alias, depth+1)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, c, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.MappingNode:
		return writeMapping(buf, n, depth)
	case yaml.ScalarNode:
		return writeScalar(buf, n)
	}
	return fmt.Errorf("yamljson: line %d: unsupported node kind %d", n.Line, n.Kind)
}

func writeMapping(buf *bytes.Buffer, n *yaml.Node, depth int) error {
	pairs, err := flatten(n, depth)
	if err != nil {
		return err
	}
	buf.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, p.key)
		buf.WriteByte(':')
		if err := write(buf, p.value, depth+1); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

type pair struct {
	key   string
	value *yaml.Node
}

// flatten lists a mapping's pairs in order, with YAML merge keys (<<) expanded: merged
// pairs come first and a key written in the mapping itself wins over a merged one.
func flatten(n *yaml.Node, depth int) ([]pair, error) {
	if depth > maxDepth {
		return nil, errors.New("yamljson: document nests too deeply")
	}
	var own, merged []pair
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			ms, err := mergeSources(v, depth)
			if err != nil {
				return nil, err
			}
			merged = append(merged, ms...)
			continue
		}
		if k.Kind == yaml.AliasNode {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("yamljson: line %d: a mapping key must be a scalar to become a JSON name", k.Line)
		}
		if seen[k.Value] {
			return nil, fmt.Errorf("yamljson: line %d: key %q appears twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		own = append(own, pair{k.Value, v})
	}
	out := make([]pair, 0, len(merged)+len(own))
	for _, p := range merged {
		if !seen[p.key] {
			seen[p.key] = true
			out = append(out, p)
		}
	}
	return append(out, own...), nil
}

func mergeSources(v *yaml.Node, depth int) ([]pair, error) {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	switch v.Kind {
	case yaml.MappingNode:
		return flatten(v, depth+1)
	case yaml.SequenceNode:
		var out []pair
		for _, c := range v.Content {
			ps, err := mergeSources(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("yamljson: line %d: << merges mappings only", v.Line)
}

func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	tag := n.ShortTag()
	if tag == "!!str" && n.Style == 0 && yamlFloat.MatchString(n.Value) {
		tag = "!!float" // plain, untagged, and a number too large for float64
	}
	switch tag {
	case "!!null":
		buf.WriteString("null")
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return fmt.Errorf("yamljson: line %d: %w", n.Line, err)
		}
		buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		s, err := intLiteral(n.Value)
		if err != nil {
			return fmt.Errorf("yamljson: line %d: %w", n.Line, err)
		}
		buf.WriteString(s)
	case "!!float":
		s, err := floatLiteral(n.Value)
		if err != nil {
			return fmt.Errorf("yamljson: line %d: %w", n.Line, err)
		}
		buf.WriteString(s)
	default: // !!str, !!timestamp, !!binary and custom tags keep their text
		writeString(buf, n.Value)
	}
	return nil
}

// intLiteral keeps a decimal integer's digits and rewrites 0x, 0o and 0b forms in
// decimal, at any size.
func intLiteral(s string) (string, error) {
	t := strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", "")
	if jsonNumber.MatchString(t) {
		return t, nil
	}
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	if len(t) > 1 && t[0] == '0' && t[1] >= '0' && t[1] <= '9' {
		t = "0o" + t[1:] // YAML 1.1 octal, as yaml.v3 reads it
	}
	var z big.Int
	if _, ok := z.SetString(t, 0); !ok {
		return "", fmt.Errorf("integer %q has no JSON form", s)
	}
	if neg {
		z.Neg(&z)
	}
	return z.String(), nil
}

// floatLiteral keeps a float's digits (1.0 stays 1.0, -0 stays -0, 1e400 stays
// 1e400) and only adds what JSON's grammar needs: a 0 around a bare point, no '+'.
func floatLiteral(s string) (string, error) {
	t := strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", "")
	if jsonNumber.MatchString(t) {
		return t, nil
	}
	switch strings.ToLower(strings.TrimLeft(t, "-")) {
	case ".inf", ".nan":
		return "", fmt.Errorf("%s has no JSON form", s)
	}
	sign := ""
	if strings.HasPrefix(t, "-") {
		sign, t = "-", t[1:]
	}
	mant, exp, _ := strings.Cut(strings.ToLower(t), "e")
	if strings.HasPrefix(mant, ".") {
		mant = "0" + mant
	}
	if strings.HasSuffix(mant, ".") {
		mant += "0"
	}
	out := sign + mant
	if exp != "" || strings.Contains(t, "e") || strings.Contains(t, "E") {
		out += "e" + strings.TrimPrefix(exp, "+")
	}
	if !jsonNumber.MatchString(out) {
		return "", fmt.Errorf("number %q has no JSON form", s)
	}
	return out, nil
}

func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // Encode's newline
}
