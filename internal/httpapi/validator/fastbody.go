package validator

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/inferd/inferd/internal/jsonscan"
)

// fastBody is the common case of decodeBody, in one scan of the body: a body that is
// valid UTF-8 and valid JSON naming no member twice, an object of plainly spelled
// members, each string member a plain ASCII string, with no number beyond a double. What the
// contract's schema says of such a body depends only on its shape (which members,
// the strings, how many elements the arrays have): the other members are AnyValue,
// which accepts every JSON value. So the schema is asked once per shape and its yes
// remembered. Every other body, and every body the schema refuses, takes decodeBody's
// general path, which words the refusal.
type fastBody struct {
	op *bodyRoute
	// names are the schema's properties in a fixed order: bit i of a shape's members
	// stands for names[i].
	names []string
	kinds []memberKind
	mu    sync.RWMutex
	seen  map[bodyShape]struct{}
}

type memberKind uint8

const (
	memberString memberKind = iota // a plain ASCII string, decoded
	memberAny                      // AnyValue: kept raw
	memberArray                    // an array of AnyValue: split into raw elements
)

// maxFastStrings and maxFastArrays bound what a shape holds; an operation with more
// string or array members than that always takes the general path.
const (
	maxFastStrings = 6 // model, version, a submission's priority, deadline and callback_url, and a batch's on_error
	maxFastArrays  = 1
	// maxShapes bounds the memory of shapes: model names are the client's to choose.
	maxShapes = 4096
)

// bodyShape is everything the schema's verdict on a fast body depends on.
type bodyShape struct {
	members uint64
	strs    [maxFastStrings]string
	lens    [maxFastArrays]int
}

// newFastBody reads op's schema; nil when the schema has members of other kinds.
func newFastBody(op *bodyRoute) *fastBody {
	f := &fastBody{op: op, seen: map[bodyShape]struct{}{}}
	for name := range op.schema.Properties {
		f.names = append(f.names, name)
	}
	slices.Sort(f.names)
	if len(f.names) > 64 {
		return nil
	}
	var strs, arrays int
	for _, name := range f.names {
		ps := op.schema.Properties[name].Value
		switch {
		case ps == op.anyValue:
			f.kinds = append(f.kinds, memberAny)
		case ps != nil && ps.Items != nil && ps.Items.Value == op.anyValue && ps.Type.Is(openapi3.TypeArray):
			f.kinds = append(f.kinds, memberArray)
			arrays++
		case ps != nil && ps.Type.Is(openapi3.TypeString):
			f.kinds = append(f.kinds, memberString)
			strs++
		default:
			return nil
		}
	}
	if strs > maxFastStrings || arrays > maxFastArrays {
		return nil
	}
	return f
}

// decode returns the body's input when b, which jsonscan.Check has accepted, takes the
// fast path and the schema accepts it; ok false sends it to the general path.
func (f *fastBody) decode(b []byte) (in *Input, ok bool) {
	if !utf8.Valid(b) {
		return nil, false
	}
	// b is a pooled buffer, reused once the request is answered, and the raw members
	// live on (a job keeps its input): they are slices of one copy.
	b = bytes.Clone(b)
	var shape bodyShape
	in = &Input{}
	var raws [64][]byte // per name index, the member's value
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = jsonscan.SkipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		// A member name: valid JSON guarantees the quotes. One spelled with an escape
		// or beyond ASCII takes the general path.
		end := jsonscan.StringEnd(b, i)
		name := b[i+1 : end-1]
		if !jsonscan.Plain(name) {
			return nil, false
		}
		k := f.index(name)
		if k < 0 || shape.members&(1<<k) != 0 {
			return nil, false // unknown or repeated: the general path words it
		}
		shape.members |= 1 << k
		i = jsonscan.SkipSpace(b, end) + 1 // past the ':'
		i = jsonscan.SkipSpace(b, i)
		vend := jsonscan.ValueEnd(b, i)
		if jsonscan.HugeNumber(b[i:vend]) != "" {
			return nil, false
		}
		raws[k] = b[i:vend]
		i = jsonscan.SkipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = jsonscan.SkipSpace(b, i+1)
		}
	}
	var strs, arrays int
	for k, name := range f.names {
		if shape.members&(1<<k) == 0 {
			continue
		}
		raw := raws[k]
		switch f.kinds[k] {
		case memberString:
			if len(raw) < 2 || raw[0] != '"' || !jsonscan.Plain(raw[1:len(raw)-1]) {
				return nil, false
			}
			s := string(raw[1 : len(raw)-1])
			shape.strs[strs] = s
			strs++
			switch name {
			case "model":
				in.Model = s
			case "version":
				in.Version = s
			case "priority":
				in.Priority = s
			case "deadline":
				in.Deadline = s
			case "callback_url":
				in.CallbackURL = s
			case "on_error":
				in.OnError = s
			}
		case memberAny:
			if name == "data" {
				in.Data = raw
			}
		case memberArray:
			elems, isArray := jsonscan.Elements(raw)
			if !isArray {
				return nil, false
			}
			shape.lens[arrays] = len(elems)
			arrays++
			if name == "items" {
				in.Items = elems
			}
		}
	}
	if !f.accepts(shape) {
		return nil, false
	}
	return in, true
}

func (f *fastBody) index(name []byte) int {
	for k, n := range f.names {
		if n == string(name) {
			return k
		}
	}
	return -1
}

// accepts asks the schema about shape, once.
func (f *fastBody) accepts(shape bodyShape) bool {
	f.mu.RLock()
	_, ok := f.seen[shape]
	f.mu.RUnlock()
	if ok {
		return true
	}
	values := make(map[string]any, len(f.names))
	var strs, arrays int
	for k, name := range f.names {
		if shape.members&(1<<k) == 0 {
			continue
		}
		switch f.kinds[k] {
		case memberString:
			values[name] = shape.strs[strs]
			strs++
		case memberAny:
			values[name] = nil // the placeholder AnyValue accepts, as in decodeBody
		case memberArray:
			values[name] = make([]any, shape.lens[arrays])
			arrays++
		}
	}
	if f.op.schema.VisitJSON(values, openapi3.VisitAsRequest()) != nil {
		return false
	}
	f.mu.Lock()
	if len(f.seen) >= maxShapes {
		clear(f.seen)
	}
	f.seen[shape] = struct{}{}
	f.mu.Unlock()
	return true
}
