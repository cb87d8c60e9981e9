package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// print writes v as one line of JSON (keys in a fixed order: struct order, or the
// server's) or, with -o table, as a table.
func (e *env) print(v any) error {
	data, err := marshal(v)
	if err != nil {
		return err
	}
	if e.output == "table" {
		return writeTable(e.stdout, data)
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", data)
	return err
}

// marshal encodes v compactly, without escaping <, > and & (results are data, not HTML).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil // Encode writes compact JSON
}

// member is one member of a JSON object, in document order.
type member struct {
	key string
	val any
}

// object is a JSON object that remembers its key order.
type object []member

// decodeOrdered decodes JSON keeping object key order and numbers' digits.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{k.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}

// writeTable lays a JSON document out for people: the scalar members of an object as
// FIELD VALUE rows (nested objects flattened as a.b), then each array of objects as a
// table of its own with a column per key.
func writeTable(w io.Writer, data []byte) error {
	v, err := decodeOrdered(data)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	o, ok := v.(object)
	if !ok {
		if rows, ok := objects(v); ok {
			tableOf(tw, rows)
		} else {
			fmt.Fprintln(tw, cell(v))
		}
		return tw.Flush()
	}
	var sections []member
	var fields [][2]string
	flatten(o, "", &fields, &sections)
	if len(fields) > 0 {
		fmt.Fprintln(tw, "FIELD\tVALUE")
		for _, f := range fields {
			fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
		}
	}
	for i, s := range sections {
		if len(fields) > 0 || i > 0 {
			fmt.Fprintln(tw)
		}
		if len(fields) > 0 || len(sections) > 1 {
			fmt.Fprintln(tw, strings.ToUpper(s.key)+":")
		}
		rows, _ := objects(s.val)
		tableOf(tw, rows)
	}
	return tw.Flush()
}

// flatten splits o into FIELD VALUE rows and sections (arrays of objects).
func flatten(o object, prefix string, fields *[][2]string, sections *[]member) {
	for _, m := range o {
		key := prefix + m.key
		if rows, ok := objects(m.val); ok && len(rows) > 0 {
			*sections = append(*sections, member{key, m.val})
			continue
		}
		if inner, ok := m.val.(object); ok && len(inner) > 0 {
			flatten(inner, key+".", fields, sections)
			continue
		}
		*fields = append(*fields, [2]string{key, cell(m.val)})
	}
}

// objects reports whether v is an array whose elements are all objects.
func objects(v any) ([]object, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	rows := make([]object, 0, len(a))
	for _, e := range a {
		o, ok := e.(object)
		if !ok {
			return nil, false
		}
		rows = append(rows, o)
	}
	return rows, true
}

// tableOf writes rows with a column per key, in the order keys first appear.
func tableOf(tw io.Writer, rows []object) {
	var cols []string
	index := map[string]int{}
	for _, r := range rows {
		for _, m := range r {
			if _, ok := index[m.key]; !ok {
				index[m.key] = len(cols)
				cols = append(cols, m.key)
			}
		}
	}
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(cols, "\t")))
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i := range cells {
			cells[i] = "-"
		}
		for _, m := range r {
			cells[index[m.key]] = cell(m.val)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
}

// cell renders a value for a table: strings bare, null as -, the rest as JSON.
func cell(v any) string {
	switch t := v.(type) {
	case nil:
		return "-"
	case string:
		return oneLine(t)
	case json.Number:
		return t.String()
	case bool:
		return fmt.Sprint(t)
	}
	data, _ := marshal(toPlain(v))
	return string(data)
}

// toPlain turns an ordered value back into one encoding/json writes in the same order.
func toPlain(v any) any {
	switch t := v.(type) {
	case object:
		return orderedJSON(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = toPlain(e)
		}
		return out
	}
	return v
}

type orderedJSON object

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(toPlain(m.val))
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
