package xgboost

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a UBJSON file: XGBoost's go four or five deep, and
// a hostile one must not recurse without end.
const maxDepth = 64

// ubjsonToJSON transcodes a UBJSON document, as XGBoost writes model.ubj, into the
// JSON text of the same value, so that one reader of the schema serves both formats.
// It takes the whole of UBJSON Draft 12 that XGBoost's writer uses: every numeric
// type, strings, the optimized containers ($ type and # count) and plain ones.
func ubjsonToJSON(data []byte) ([]byte, error) {
	r := &ubjReader{data: data, out: make([]byte, 0, len(data)*2)}
	m, err := r.marker()
	if err != nil {
		return nil, err
	}
	if err := r.value(m, 0); err != nil {
		return nil, err
	}
	for r.pos < len(r.data) && r.data[r.pos] == 'N' {
		r.pos++
	}
	if r.pos != len(r.data) {
		return nil, fmt.Errorf("UBJSON: %d bytes after the document", len(r.data)-r.pos)
	}
	return r.out, nil
}

type ubjReader struct {
	data []byte
	pos  int
	out  []byte
}

var errTruncated = errors.New("UBJSON: the file ends in the middle of a value")

func (r *ubjReader) take(n int) ([]byte, error) {
	if n < 0 || n > len(r.data)-r.pos {
		return nil, errTruncated
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

// marker reads the next type marker, skipping no-ops.
func (r *ubjReader) marker() (byte, error) {
	for {
		b, err := r.take(1)
		if err != nil {
			return 0, err
		}
		if b[0] != 'N' {
			return b[0], nil
		}
	}
}

// integer reads an integer of type m (a length or count).
func (r *ubjReader) integer(m byte) (int64, error) {
	switch m {
	case 'i':
		b, err := r.take(1)
		if err != nil {
			return 0, err
		}
		return int64(int8(b[0])), nil
	case 'U':
		b, err := r.take(1)
		if err != nil {
			return 0, err
		}
		return int64(b[0]), nil
	case 'I':
		b, err := r.take(2)
		if err != nil {
			return 0, err
		}
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	case 'l':
		b, err := r.take(4)
		if err != nil {
			return 0, err
		}
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	case 'L':
		b, err := r.take(8)
		if err != nil {
			return 0, err
		}
		return int64(binary.BigEndian.Uint64(b)), nil
	}
	return 0, fmt.Errorf("UBJSON: a length of type %q, not an integer", m)
}

// length reads a length or count: a marked integer, not negative, no more than the
// bytes left (every element takes at least one).
func (r *ubjReader) length() (int, error) {
	m, err := r.marker()
	if err != nil {
		return 0, err
	}
	n, err := r.integer(m)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > int64(len(r.data)-r.pos) {
		return 0, fmt.Errorf("UBJSON: a length of %d at byte %d, with %d bytes left", n, r.pos, len(r.data)-r.pos)
	}
	return int(n), nil
}

func (r *ubjReader) str() error {
	n, err := r.length()
	if err != nil {
		return err
	}
	b, err := r.take(n)
	if err != nil {
		return err
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("UBJSON: a string that is not UTF-8 at byte %d", r.pos-n)
	}
	r.out = strconv.AppendQuote(r.out, string(b))
	return nil
}

// value writes the value of type marker m.
func (r *ubjReader) value(m byte, depth int) error {
	switch m {
	case 'Z':
		r.out = append(r.out, "null"...)
	case 'T':
		r.out = append(r.out, "true"...)
	case 'F':
		r.out = append(r.out, "false"...)
	case 'i', 'U', 'I', 'l', 'L':
		n, err := r.integer(m)
		if err != nil {
			return err
		}
		r.out = strconv.AppendInt(r.out, n, 10)
	case 'd':
		b, err := r.take(4)
		if err != nil {
			return err
		}
		return r.float(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32)
	case 'D':
		b, err := r.take(8)
		if err != nil {
			return err
		}
		return r.float(math.Float64frombits(binary.BigEndian.Uint64(b)), 64)
	case 'H':
		n, err := r.length()
		if err != nil {
			return err
		}
		b, err := r.take(n)
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("UBJSON: a high-precision number %q", b)
		}
		return r.float(f, 64)
	case 'C':
		b, err := r.take(1)
		if err != nil {
			return err
		}
		r.out = strconv.AppendQuote(r.out, string(rune(b[0])))
	case 'S':
		return r.str()
	case '[', '{':
		if depth >= maxDepth {
			return fmt.Errorf("UBJSON: nested more than %d deep", maxDepth)
		}
		return r.container(m == '{', depth+1)
	default:
		return fmt.Errorf("UBJSON: unknown type marker %q at byte %d", m, r.pos-1)
	}
	return nil
}

func (r *ubjReader) float(f float64, bits int) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("UBJSON: a number that is not finite (%v) at byte %d", f, r.pos)
	}
	r.out = strconv.AppendFloat(r.out, f, 'g', -1, bits)
	return nil
}

// container writes an array or object, plain (closed by ] or }) or optimized
// ($ element type, # count).
func (r *ubjReader) container(object bool, depth int) error {
	open, closing := byte('['), byte(']')
	if object {
		open, closing = '{', '}'
	}
	r.out = append(r.out, open)
	var typ byte
	count := -1
	if r.pos < len(r.data) && r.data[r.pos] == '$' {
		r.pos++
		b, err := r.take(1)
		if err != nil {
			return err
		}
		typ = b[0]
		if r.pos >= len(r.data) || r.data[r.pos] != '#' {
			return fmt.Errorf("UBJSON: a container type without a count at byte %d", r.pos)
		}
	}
	if r.pos < len(r.data) && r.data[r.pos] == '#' {
		r.pos++
		n, err := r.length()
		if err != nil {
			return err
		}
		count = n
		if typ != 0 {
			if w := ubjWidth(typ); w > 0 && int64(count)*int64(w) > int64(len(r.data)-r.pos) {
				return errTruncated
			}
		}
	}
	for i := 0; count < 0 || i < count; i++ {
		if count < 0 {
			if r.pos >= len(r.data) {
				return errTruncated
			}
			for r.pos < len(r.data) && r.data[r.pos] == 'N' {
				r.pos++
			}
			if r.pos < len(r.data) && r.data[r.pos] == closing {
				r.pos++
				break
			}
		}
		if i > 0 {
			r.out = append(r.out, ',')
		}
		if object {
			if err := r.str(); err != nil {
				return err
			}
			r.out = append(r.out, ':')
		}
		m := typ
		if m == 0 {
			var err error
			if m, err = r.marker(); err != nil {
				return err
			}
		}
		if err := r.value(m, depth); err != nil {
			return err
		}
	}
	r.out = append(r.out, closing)
	return nil
}

// ubjWidth is the size of a fixed-width element of type m, 0 for others (T, F and Z
// take no bytes in a typed container; the count's own cap bounds them).
func ubjWidth(m byte) int {
	switch m {
	case 'i', 'U', 'C':
		return 1
	case 'I':
		return 2
	case 'l', 'd':
		return 4
	case 'L', 'D':
		return 8
	}
	return 0
}
