package jsonscan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// DuplicateError is an object that names a member twice.
type DuplicateError struct {
	// Name is the member's name, decoded.
	Name string
	// Path is where the object is: "" for the top-level value, else its members and
	// elements from the top, as in inputs[0].parameters or data["a b"].
	Path string
	// Offset is where the second occurrence of the name starts in the text.
	Offset int
}

func (e *DuplicateError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("duplicate member %q", e.Name)
	}
	return fmt.Sprintf("duplicate member %q in %s", e.Name, e.Path)
}

// duplicateAt describes the name that starts at raw[at], which scan found again in
// its object. It walks the text up to there once more, which only a refused body
// costs, rather than keep every path while scanning.
func duplicateAt(raw []byte, at int) *DuplicateError {
	type frame struct {
		object bool
		key    string // the member being read, in an object
		index  int    // the element being read, in an array
	}
	var stack []frame
	for i := 0; i < at; i++ {
		switch c := raw[i]; c {
		case '{', '[':
			stack = append(stack, frame{object: c == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; !top.object {
				top.index++
			}
		case '"':
			end := validString(raw, i)
			if top := &stack[len(stack)-1]; top.object && raw[SkipSpace(raw, end)] == ':' {
				top.key = decodeString(raw[i:end])
			}
			i = end - 1
		}
	}
	end := validString(raw, at)
	var path strings.Builder
	for _, f := range stack[:len(stack)-1] { // the last is the object holding the name
		switch {
		case !f.object:
			path.WriteString("[" + strconv.Itoa(f.index) + "]")
		case identifier(f.key):
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(f.key)
		default:
			path.WriteString("[" + strconv.Quote(f.key) + "]")
		}
	}
	return &DuplicateError{Name: decodeString(raw[at:end]), Path: path.String(), Offset: at}
}

// identifier reports whether a member name reads plainly after a dot in a path.
func identifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// decodeString reads a valid JSON string as encoding/json does.
func decodeString(quoted []byte) string {
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}
