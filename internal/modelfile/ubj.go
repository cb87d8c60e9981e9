package modelfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// errUBJ is a document that is not Universal Binary JSON as XGBoost writes it.
var errUBJ = errors.New("malformed UBJSON")

// maxUBJDepth bounds nesting: XGBoost's model is a few levels deep, and a hostile file
// must not exhaust the stack.
const maxUBJDepth = 64

// ubjDecoder reads Universal Binary JSON (ubjson.org, draft 12), the format of
// XGBoost's .ubj files, into the values encoding/json decodes to: map[string]any,
// []any, string, float64, bool and nil. Integers become float64, as in JSON.
type ubjDecoder struct {
	data  []byte
	depth int
}

// ReadXGBoostUBJ reads an XGBoost model saved as UBJ (model.ubj): the JSON model's
// document in Universal Binary JSON.
func ReadXGBoostUBJ(data []byte) (*Model, error) {
	v, err := decodeUBJ(data)
	if err != nil {
		return nil, fmt.Errorf("%w: not an XGBoost UBJ model: %v", ErrNotModel, err)
	}
	// The same document as the JSON file: read it the same way.
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: not an XGBoost UBJ model: %v", ErrNotModel, err)
	}
	return ReadXGBoost(j)
}

func decodeUBJ(data []byte) (any, error) {
	d := &ubjDecoder{data: data}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if len(d.data) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the document", errUBJ, len(d.data))
	}
	return v, nil
}

func (d *ubjDecoder) byte() (byte, error) {
	if len(d.data) == 0 {
		return 0, fmt.Errorf("%w: unexpected end", errUBJ)
	}
	b := d.data[0]
	d.data = d.data[1:]
	return b, nil
}

func (d *ubjDecoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.data) {
		return nil, fmt.Errorf("%w: %d bytes wanted, %d left", errUBJ, n, len(d.data))
	}
	b := d.data[:n]
	d.data = d.data[n:]
	return b, nil
}

func (d *ubjDecoder) value() (any, error) {
	m, err := d.byte()
	for err == nil && m == 'N' { // no-op
		m, err = d.byte()
	}
	if err != nil {
		return nil, err
	}
	return d.typed(m)
}

// typed reads a value whose type marker m has been read.
func (d *ubjDecoder) typed(m byte) (any, error) {
	switch m {
	case 'Z':
		return nil, nil
	case 'T':
		return true, nil
	case 'F':
		return false, nil
	case 'i', 'U', 'I', 'l', 'L':
		n, err := d.integer(m)
		return float64(n), err
	case 'd':
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), nil
	case 'D':
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
	case 'C':
		b, err := d.take(1)
		return string(b), err
	case 'S', 'H':
		return d.str()
	case '[', '{':
		if d.depth++; d.depth > maxUBJDepth {
			return nil, fmt.Errorf("%w: nested deeper than %d", errUBJ, maxUBJDepth)
		}
		defer func() { d.depth-- }()
		if m == '[' {
			return d.array()
		}
		return d.object()
	}
	return nil, fmt.Errorf("%w: unknown type marker %q", errUBJ, m)
}

func (d *ubjDecoder) integer(m byte) (int64, error) {
	size := map[byte]int{'i': 1, 'U': 1, 'I': 2, 'l': 4, 'L': 8}[m]
	if size == 0 {
		return 0, fmt.Errorf("%w: %q is not an integer marker", errUBJ, m)
	}
	b, err := d.take(size)
	if err != nil {
		return 0, err
	}
	switch m {
	case 'i':
		return int64(int8(b[0])), nil
	case 'U':
		return int64(b[0]), nil
	case 'I':
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	case 'l':
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// length reads a count or a string length: an integer with its marker.
func (d *ubjDecoder) length() (int, error) {
	m, err := d.byte()
	if err != nil {
		return 0, err
	}
	n, err := d.integer(m)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > int64(len(d.data))*8+8 { // no element is smaller than a bit's worth
		return 0, fmt.Errorf("%w: count %d for %d bytes", errUBJ, n, len(d.data))
	}
	return int(n), nil
}

func (d *ubjDecoder) str() (string, error) {
	n, err := d.length()
	if err != nil {
		return "", err
	}
	b, err := d.take(n)
	return string(b), err
}

// header reads an optimized container's $type and #count, if any: count -1 means
// the container ends with its closing marker.
func (d *ubjDecoder) header() (typ byte, count int, err error) {
	count = -1
	if len(d.data) > 0 && d.data[0] == '$' {
		d.data = d.data[1:]
		if typ, err = d.byte(); err != nil {
			return 0, 0, err
		}
		if len(d.data) == 0 || d.data[0] != '#' {
			return 0, 0, fmt.Errorf("%w: a $type without a #count", errUBJ)
		}
	}
	if len(d.data) > 0 && d.data[0] == '#' {
		d.data = d.data[1:]
		if count, err = d.length(); err != nil {
			return 0, 0, err
		}
	}
	return typ, count, nil
}

// element reads a container's next value: of type typ when the header gave one.
func (d *ubjDecoder) element(typ byte) (any, error) {
	if typ != 0 {
		return d.typed(typ)
	}
	return d.value()
}

func (d *ubjDecoder) array() (any, error) {
	typ, count, err := d.header()
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, max(count, 0))
	for i := 0; count < 0 || i < count; i++ {
		if count < 0 && len(d.data) > 0 && d.data[0] == ']' {
			d.data = d.data[1:]
			break
		}
		v, err := d.element(typ)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (d *ubjDecoder) object() (any, error) {
	typ, count, err := d.header()
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for i := 0; count < 0 || i < count; i++ {
		if count < 0 && len(d.data) > 0 && d.data[0] == '}' {
			d.data = d.data[1:]
			break
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		v, err := d.element(typ)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}
