package oip

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/inferd/inferd/internal/jsonscan"
	"github.com/inferd/inferd/internal/tensor"
)

// ErrInvalid: the request does not follow the protocol.
var ErrInvalid = errors.New("invalid inference request")

// Error is a request that does not follow the protocol: Msg says where and what to fix.
// Malformed marks a request whose JSON itself is at fault (not valid, or naming a
// member twice), before anything of the protocol is read.
type Error struct {
	Msg       string
	Malformed bool
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return ErrInvalid }

func fail(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// maxRank caps a shape's dimensions, as the contract's schema does.
const maxRank = 32

// Request is a decoded inference request.
type Request struct {
	// ID is the request's id, echoed in the response; nil when it sent none.
	ID *string
	// Inputs are the tensors, batch dimension first.
	Inputs []tensor.Named
	// Outputs are the outputs asked for by name; empty: all, as JSON unless BinaryOutput.
	Outputs []Output
	// BinaryOutput is the request parameter binary_data_output: every output as binary
	// data.
	BinaryOutput bool
}

// Output is an output asked for.
type Output struct {
	Name string
	// Binary is its parameter binary_data: sent as raw bytes after the JSON header.
	Binary bool
}

// Decode reads a request: header is its JSON, binary the bytes after it (the binary
// data extension), empty for a plain JSON request. Inputs with the parameter
// binary_data_size take that many bytes of binary, in the order of the inputs; every
// byte must be taken.
func Decode(header, binary []byte) (*Request, error) {
	return decode(header, binary, deferMin)
}

// decode is Decode with the flat arrays of at least deferMin bytes checked as they
// are read (see deferred); 0 checks the whole header first.
func decode(header, binary []byte, deferMin int) (*Request, error) {
	d := &deferred{header: header}
	var err error
	if deferMin > 0 {
		d.spans, err = jsonscan.CheckDeferring(header, deferMin)
	} else {
		err = jsonscan.Check(header)
	}
	if err != nil {
		return nil, malformed(header, jsonscan.Check(header))
	}
	req, err := decodeChecked(header, binary, d)
	if err == nil {
		err = d.checkRest()
	}
	if err != nil && len(d.spans) > 0 {
		// Text that is not JSON is answered as such, whatever else is wrong: the
		// answer a whole check first gives.
		if err := jsonscan.Check(header); err != nil {
			return nil, malformed(header, err)
		}
	}
	return req, err
}

// malformed is the answer to a header that jsonscan.Check refuses with err.
func malformed(header []byte, err error) error {
	// A member named twice means one thing to inferd and another to a reader that
	// keeps the first (a proxy, a firewall): neither is taken.
	var dup *jsonscan.DuplicateError
	if errors.As(err, &dup) {
		return &Error{Malformed: true, Msg: fmt.Sprintf("the inference request has a %v; send each member of an object once (readers disagree on which of two counts)", dup)}
	}
	return &Error{Malformed: true, Msg: "the inference request is not valid JSON: " + jsonErr(json.Unmarshal(header, new(any)))}
}

// decodeChecked takes apart a header that jsonscan has checked but for the spans of
// checks.
func decodeChecked(header, binary []byte, checks *deferred) (*Request, error) {
	var members [8]jsonscan.Member
	top, ok := jsonscan.AppendMembers(members[:0], header)
	if !ok {
		return nil, fail("the inference request must be a JSON object")
	}
	for _, m := range top {
		if string(m.Name) == "inputs" {
			continue // checked input by input, the data by datatype
		}
		if jsonscan.HugeNumber(m.Value) != "" {
			return nil, checkHuge(string(m.Name), m.Value)
		}
	}
	req := &Request{}
	if raw, ok := top.Get("id"); ok {
		id, ok := str(raw)
		if !ok {
			return nil, fail("id must be a string, got %s", kind(raw))
		}
		req.ID = &id
	}
	if raw, ok := top.Get("parameters"); ok {
		params, err := parameters("parameters", raw)
		if err != nil {
			return nil, err
		}
		if req.BinaryOutput, err = boolParam("parameters", params, "binary_data_output"); err != nil {
			return nil, err
		}
	}
	raw, found := top.Get("inputs")
	if !found {
		return nil, fail("inputs is missing: send at least one input tensor")
	}
	inputs, ok := jsonscan.Elements(raw)
	if !ok {
		return nil, fail("inputs must be an array of tensors, got %s", kind(raw))
	}
	if len(inputs) == 0 {
		return nil, fail("inputs is empty: send at least one input tensor")
	}
	rest := binary
	for i, raw := range inputs {
		in, err := decodeInput(i, raw, &rest, checks)
		if err != nil {
			return nil, err
		}
		req.Inputs = append(req.Inputs, in)
	}
	if len(rest) > 0 {
		return nil, fail("%d bytes of binary data follow the last input's; the inputs' binary_data_size account for %d of the %d", len(rest), len(binary)-len(rest), len(binary))
	}
	if raw, ok := top.Get("outputs"); ok {
		var outs []json.RawMessage
		if err := json.Unmarshal(raw, &outs); err != nil || outs == nil {
			return nil, fail("outputs must be an array of {\"name\": ...} objects, got %s", kind(raw))
		}
		asked := make(map[string]int, len(outs))
		for i, o := range outs {
			out, err := decodeOutput(i, o)
			if err != nil {
				return nil, err
			}
			if j, twice := asked[out.Name]; twice {
				return nil, fail("outputs[%d] asks for output %q, as outputs[%d] does; ask for each output once", i, out.Name, j)
			}
			asked[out.Name] = i
			req.Outputs = append(req.Outputs, out)
		}
	}
	return req, nil
}

// get is o's member name, or nil when it has none.
func get(o jsonscan.Object, name string) json.RawMessage {
	v, _ := o.Get(name)
	return v
}

func decodeOutput(i int, raw json.RawMessage) (Output, error) {
	where := fmt.Sprintf("outputs[%d]", i)
	m, ok := jsonscan.Members(raw)
	if !ok {
		return Output{}, fail("%s must be an object with a name, got %s", where, kind(raw))
	}
	var out Output
	if out.Name, _ = str(get(m, "name")); out.Name == "" {
		return Output{}, fail("%s.name must be a non-empty string", where)
	}
	if raw, ok := m.Get("parameters"); ok {
		params, err := parameters(where+".parameters", raw)
		if err != nil {
			return Output{}, err
		}
		if out.Binary, err = boolParam(where+".parameters", params, "binary_data"); err != nil {
			return Output{}, err
		}
	}
	return out, nil
}

func decodeInput(i int, raw json.RawMessage, binary *[]byte, checks *deferred) (tensor.Named, error) {
	// where is built without fmt: it is built for every input, and read only in a
	// message.
	where := "inputs[" + strconv.Itoa(i) + "]"
	var members [8]jsonscan.Member
	m, ok := jsonscan.AppendMembers(members[:0], raw)
	if !ok {
		return tensor.Named{}, fail("%s must be an object with name, shape, datatype and data, got %s", where, kind(raw))
	}
	name, _ := str(get(m, "name"))
	if name == "" {
		return tensor.Named{}, fail("%s.name must be a non-empty string", where)
	}
	for _, member := range m {
		if string(member.Name) == "data" {
			continue
		}
		if jsonscan.HugeNumber(member.Value) != "" {
			return tensor.Named{}, checkHuge(fmt.Sprintf("input %q: %s", name, member.Name), member.Value)
		}
	}
	where = quoted("input ", name)
	dt, ok := str(get(m, "datatype"))
	if !ok {
		return tensor.Named{}, fail("%s: datatype must be one of %s", where, Datatypes)
	}
	d, ok := DType(dt)
	if !ok {
		return tensor.Named{}, fail("%s: datatype %q is not one of %s", where, dt, Datatypes)
	}
	shape, size, err := decodeShape(where, get(m, "shape"))
	if err != nil {
		return tensor.Named{}, err
	}
	t := &tensor.Tensor{DType: d, Shape: shape}
	binSize := int64(-1)
	if raw, ok := m.Get("parameters"); ok {
		params, err := parameters(where+": parameters", raw)
		if err != nil {
			return tensor.Named{}, err
		}
		if raw, ok := params.Get("binary_data_size"); ok {
			if binSize, err = strconv.ParseInt(string(raw), 10, 64); err != nil || binSize < 0 {
				return tensor.Named{}, fail("%s: parameters.binary_data_size must be a whole number of bytes, got %s", where, raw)
			}
		}
	}
	data, hasData := m.Get("data")
	switch {
	case binSize >= 0 && hasData:
		return tensor.Named{}, fail("%s has both data and parameters.binary_data_size; send its values one way", where)
	case binSize >= 0:
		if binSize > int64(len(*binary)) {
			return tensor.Named{}, fail("%s: binary_data_size is %d bytes, but only %d bytes of binary data are left after the JSON header", where, binSize, len(*binary))
		}
		chunk := (*binary)[:binSize]
		*binary = (*binary)[binSize:]
		err = decodeBinary(where, t, size, chunk)
	case !hasData:
		return tensor.Named{}, fail("%s has no data: send data (flat or nested arrays), or binary data with parameters.binary_data_size", where)
	default:
		err = decodeData(where, t, size, data)
		if err == nil && (d == tensor.Float32 || d == tensor.Float64) {
			checks.read(data) // checked as read, every number by fastFloat
		}
	}
	if err != nil {
		return tensor.Named{}, err
	}
	return tensor.Named{Name: name, Tensor: t}, nil
}

// decodeShape reads a shape and the number of elements it holds. A dimension is a
// JSON number spelled as a whole number, as Triton reads it: not "2" (which a lenient
// reader takes for 2 and a strict one refuses), not null, not 2.0 or 2e0 (which some
// readers take for a float).
func decodeShape(where string, raw json.RawMessage) ([]int64, int64, error) {
	dims, ok := jsonscan.Elements(raw)
	if !ok {
		return nil, 0, fail("%s: shape must be an array of dimensions, like [1,4], got %s", where, kind(raw))
	}
	if len(dims) > maxRank {
		return nil, 0, fail("%s: shape has %d dimensions; at most %d are allowed", where, len(dims), maxRank)
	}
	shape := make([]int64, len(dims))
	for i, n := range dims {
		if !wholeNumber(n) {
			return nil, 0, fail("%s: shape[%d] is %s; dimensions are whole numbers, written without quotes, fraction or exponent, like 4", where, i, spelled(n))
		}
		d, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, 0, fail("%s: shape[%d] is %.40s, beyond any dimension (at most %d)", where, i, n, int64(math.MaxInt64))
		}
		shape[i] = d
	}
	size, err := CheckShape(where, shape)
	return shape, size, err
}

// CheckShape checks a request's shape and returns how many elements it holds: at
// most maxRank dimensions, none negative, a product that fits an int64.
func CheckShape(where string, shape []int64) (int64, error) {
	if len(shape) > maxRank {
		return 0, fail("%s: shape has %d dimensions; at most %d are allowed", where, len(shape), maxRank)
	}
	size := int64(1)
	for i, d := range shape {
		if d < 0 {
			return 0, fail("%s: shape[%d] is %d; dimensions of a request cannot be negative", where, i, d)
		}
		if d != 0 && size > math.MaxInt64/d {
			return 0, fail("%s: shape %s holds more elements than any request can carry", where, tensor.FormatShape(shape))
		}
		size *= d
	}
	return size, nil
}

func parameters(where string, raw json.RawMessage) (jsonscan.Object, error) {
	m, ok := jsonscan.Members(raw)
	if !ok {
		return nil, fail("%s must be an object, got %s", where, kind(raw))
	}
	return m, nil
}

// boolParam reads a parameter that is true or false: null is neither (encoding/json
// would read it as false, leaving the default).
func boolParam(where string, params jsonscan.Object, name string) (bool, error) {
	raw, ok := params.Get(name)
	if !ok {
		return false, nil
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fail("%s.%s must be true or false, got %.40s", where, name, raw)
}

// decodeData reads the JSON data of a tensor, flat or nested, into t.
func decodeData(where string, t *tensor.Tensor, size int64, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return fail("%s: data must be an array (flat in row-major order, or nested), got %s", where, kind(raw))
	}
	// No more elements can be read than the body holds, so a huge shape allocates
	// nothing before its data is found short.
	capacity := min(size, int64(len(raw)/2+1))
	switch {
	case t.DType == tensor.Bytes:
		t.Bytes = make([][]byte, 0, capacity)
	case t.DType == tensor.Float32:
		t.F32 = make([]float32, 0, capacity)
	case t.DType.IsFloat():
		t.Float = make([]float64, 0, capacity)
	default:
		t.Int = make([]int64, 0, capacity)
	}
	// FP32 and FP64 numbers are read in one pass (fastFloat); the rest as tokens.
	bits := 0
	switch t.DType {
	case tensor.Float32:
		bits = 32
	case tensor.Float64:
		bits = 64
	}
	// The walk checks the text's grammar too, as jsonscan.Check would: the arrays it
	// holds, and every number of FP32 and FP64 data (see deferred). The other tokens
	// are checked by appendValue, or by Valid later.
	n := int64(0)
	depth, state := 0, wantFirst
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			if state != wantValue && state != wantFirst {
				return errSyntax
			}
			depth++
			state = wantFirst
			continue
		case ']':
			if state != wantFirst && state != wantNext {
				return errSyntax
			}
			if depth--; depth == 0 {
				state = wantEnd
			} else {
				state = wantNext
			}
			continue
		case ',':
			if state != wantNext {
				return errSyntax
			}
			state = wantValue
			continue
		}
		if state != wantValue && state != wantFirst {
			return errSyntax
		}
		state = wantNext
		if bits != 0 && (c == '-' || c >= '0' && c <= '9') {
			if n >= size {
				return fail("%s: data holds more than the %d values of shape %s", where, size, tensor.FormatShape(t.Shape))
			}
			v, j, ok := fastFloat(raw, i, bits)
			if j < 0 {
				return errSyntax
			}
			if ok {
				appendFloat(t, v)
			} else if err := appendValue(t, raw[i:j]); err != nil {
				return fail("%s: data[%d]: %v", where, n, err)
			}
			n++
			i = j - 1
			continue
		}
		j, err := leafEnd(raw, i)
		if err != nil {
			return fail("%s: %v", where, err)
		}
		tok := raw[i:j]
		if n >= size {
			return fail("%s: data holds more than the %d values of shape %s", where, size, tensor.FormatShape(t.Shape))
		}
		if err := appendValue(t, tok); err != nil {
			return fail("%s: data[%d]: %v", where, n, err)
		}
		n++
		i = j - 1
	}
	if state != wantEnd {
		return errSyntax
	}
	if n != size {
		return fail("%s: data holds %d values; shape %s needs %d", where, n, tensor.FormatShape(t.Shape), size)
	}
	return nil
}

// appendFloat appends v, a value of t's float datatype, where t holds them: a Float32
// tensor read from JSON holds float32s (decodeData).
func appendFloat(t *tensor.Tensor, v float64) {
	if t.DType == tensor.Float32 {
		t.F32 = append(t.F32, float32(v))
		return
	}
	t.Float = append(t.Float, v)
}

// What decodeData's walk expects next.
const (
	wantFirst = iota // a value or ']', after '['
	wantValue        // a value, after ','
	wantNext         // ',' or ']', after a value
	wantEnd          // nothing, after the last ']'
)

// leafEnd returns the end of the JSON scalar starting at raw[i] (valid JSON text).
func leafEnd(raw []byte, i int) (int, error) {
	switch raw[i] {
	case '{':
		return 0, errors.New("data holds an object; it must hold only values of the datatype")
	case '"':
		if end := jsonscan.StringEnd(raw, i); end > i+1 && raw[end-1] == '"' {
			return end, nil
		}
		return 0, errors.New("data holds an unterminated string")
	}
	j := i
	for ; j < len(raw); j++ {
		switch raw[j] {
		case ',', ']', ' ', '\t', '\r', '\n':
			return j, nil
		}
	}
	return j, nil
}

// appendValue appends one JSON scalar to t, checking it against t's datatype.
func appendValue(t *tensor.Tensor, tok []byte) error {
	name := datatypeName{t.DType}
	switch {
	case t.DType == tensor.Bytes:
		if tok[0] != '"' {
			return fmt.Errorf("%s is not a string; BYTES elements are strings", tok)
		}
		var s string
		if bytes.IndexByte(tok, '\\') < 0 {
			t.Bytes = append(t.Bytes, tok[1:len(tok)-1])
			return nil
		}
		if err := json.Unmarshal(tok, &s); err != nil {
			return fmt.Errorf("%s is not a valid string", tok)
		}
		t.Bytes = append(t.Bytes, []byte(s))
	case t.DType == tensor.Bool:
		switch string(tok) {
		case "true":
			t.Int = append(t.Int, 1)
		case "false":
			t.Int = append(t.Int, 0)
		default:
			return fmt.Errorf("%s is not true or false; BOOL elements are booleans", tok)
		}
	case t.DType.IsFloat():
		if !isNumber(tok) {
			return fmt.Errorf("%s is not a number; %s elements are numbers", tok, name)
		}
		// In range is what the datatype can hold once rounded to it: 3.4028235e38 is
		// float32's largest value as printed, a hair above it before rounding.
		bits := 64
		if t.DType == tensor.Float32 {
			bits = 32
		}
		v, err := strconv.ParseFloat(string(tok), bits)
		if err != nil || t.DType == tensor.Float16 && floatToHalf(v)&0x7fff == 0x7c00 {
			return fmt.Errorf("%s is out of the range of %s", tok, name)
		}
		if t.DType == tensor.Float16 {
			v = halfToFloat(floatToHalf(v)) // what the model will compute in
		}
		appendFloat(t, v)
	default:
		if !isNumber(tok) {
			return fmt.Errorf("%s is not a number; %s elements are whole numbers", tok, name)
		}
		if t.DType == tensor.Uint64 {
			u, err := strconv.ParseUint(string(tok), 10, 64)
			if err != nil {
				return fmt.Errorf("%s is not a whole number in the range of UINT64", tok)
			}
			t.Int = append(t.Int, int64(u)) // the bits; Datatype UINT64 reads them back unsigned
			return nil
		}
		v, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil || t.DType != tensor.Int64 && !t.DType.InRange(float64(v)) {
			return fmt.Errorf("%s is not a whole number in the range of %s", tok, name)
		}
		t.Int = append(t.Int, v)
	}
	return nil
}

// datatypeName prints as the protocol's name of d, looked up only when a message is
// written: appendValue runs once per element.
type datatypeName struct{ d tensor.DType }

func (n datatypeName) String() string { return Datatype(n.d) }

func isNumber(tok []byte) bool { return tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9' }

// quoted is prefix and fmt's %q of s, without fmt for the names most requests use.
func quoted(prefix, s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return prefix + strconv.Quote(s)
		}
	}
	return prefix + `"` + s + `"`
}

// str reads a JSON string; null or any other type is not one.
func str(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	// A string of valid JSON text without escapes is its bytes, when they are UTF-8
	// (encoding/json replaces what is not).
	if len(raw) >= 2 && raw[len(raw)-1] == '"' {
		if in := raw[1 : len(raw)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return string(in), true
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// wholeNumber reports whether a JSON value is a number without fraction or exponent.
func wholeNumber(tok []byte) bool {
	if len(tok) == 0 || !isNumber(tok) {
		return false
	}
	return !bytes.ContainsAny(tok, ".eE")
}

// spelled shows a value that is no whole number, and what it is, for messages.
func spelled(tok []byte) string {
	switch k := kind(tok); k {
	case "null":
		return "null"
	case "a number":
		return fmt.Sprintf("%.40s, a number with a fraction or exponent", tok)
	default:
		return fmt.Sprintf("%.40s, %s", tok, k)
	}
}

// kind names the JSON type of raw, for messages.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func jsonErr(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
