package jsonscan

import "errors"

// maxDepth is encoding/json's limit on nesting: deeper text is not valid to it.
const maxDepth = 10000

// ErrSyntax is Check's answer for text that is not one JSON value.
var ErrSyntax = errors.New("not one JSON value")

// Valid reports whether raw is one JSON value: json.Valid's answer on any input
// (FuzzValid), depth limit included. json.Valid steps a state machine through a
// function call per byte; this loop reads numbers, the bulk of a tensor, a run at a
// time (see docs/design.md#json-validity).
func Valid(raw []byte) bool {
	ok, _ := scan(raw, false)
	return ok
}

// Check is Valid that also refuses an object naming a member twice: nil when raw is
// one JSON value whose every object, at any depth, names each member once; a
// *DuplicateError for the first member named again; ErrSyntax otherwise. JSON
// (RFC 8259) leaves duplicates to the reader: encoding/json and kin-openapi keep the
// last, many proxies and firewalls the first, so a body that names one twice means
// one thing to what checked it and another to inferd. Check is the same pass as
// Valid, so a request body is scanned once for both.
func Check(raw []byte) error {
	ok, dup := scan(raw, true)
	switch {
	case ok:
		return nil
	case dup >= 0:
		return duplicateAt(raw, dup)
	}
	return ErrSyntax
}

// scan reads raw as one JSON value. With unique set, it fails at the first member
// name an enclosing object has already used, and returns where that name starts as
// dup; dup is -1 for every other outcome.
func scan(raw []byte, unique bool) (ok bool, dup int) {
	return scanDeferring(raw, unique, 0, nil)
}

// scanDeferring is scan that, when deferMin is above 0, steps over the flat arrays of
// at least deferMin bytes (see CheckDeferring) and appends them to deferred.
func scanDeferring(raw []byte, unique bool, deferMin int, deferred *[]Span) (ok bool, dup int) {
	closing := 0 // flatArrayEnd's search for a ']'
	// Only arrays in the value of a member named data are deferred: the caller reads
	// them, and the walkers of the rest need valid text to make progress.
	dataKey := false // the value at i is a member named data's
	inData := -1     // the depth of the array that is a member named data's, while open
	var openBuf [64]byte
	open := openBuf[:0] // '{' or '[' of each enclosing value
	// The names of the open objects, innermost last, when unique is set.
	var nameBuf [16]name
	var objectBuf [8]object
	names, objects := nameBuf[:0], objectBuf[:0]
	i := SkipSpace(raw, 0)
	for {
		// A value starts at i.
		if i >= len(raw) {
			return false, -1
		}
		isData := dataKey
		dataKey = false
		switch c := raw[i]; {
		case c == '{' || c == '[':
			if len(open) >= maxDepth {
				return false, -1
			}
			if c == '[' && deferMin > 0 && (isData || inData >= 0) {
				if end := flatArrayEnd(raw, i, &closing); end-i >= deferMin {
					*deferred = append(*deferred, Span{i, end})
					i = end
					break
				}
			}
			i = SkipSpace(raw, i+1)
			if i < len(raw) && raw[i] == c+2 { // '}' or ']': empty
				i++
				break
			}
			open = append(open, c)
			if isData && c == '[' && inData < 0 {
				inData = len(open)
			}
			if c == '{' {
				start := i
				end := 0
				if end, i = validKey(raw, i); i < 0 {
					return false, -1
				}
				dataKey = deferMin > 0 && string(raw[start:end]) == `"data"`
				if unique {
					objects = openObject(objects, names)
					var fresh bool
					if names, fresh = addName(raw, names, &objects[len(objects)-1], start, end); !fresh {
						return false, start
					}
				}
			}
			continue
		case c == '"':
			i = validString(raw, i)
		case c == '-' || c >= '0' && c <= '9':
			i = NumberEnd(raw, i)
		case c == 't':
			i = validLiteral(raw, i, "true")
		case c == 'f':
			i = validLiteral(raw, i, "false")
		case c == 'n':
			i = validLiteral(raw, i, "null")
		default:
			return false, -1
		}
		if i < 0 {
			return false, -1
		}
		// A value ended at i: close what it ends, then expect the next.
		for {
			i = SkipSpace(raw, i)
			if len(open) == 0 {
				return i == len(raw), -1
			}
			if i >= len(raw) {
				return false, -1
			}
			top := open[len(open)-1]
			if raw[i] == top+2 {
				if len(open) == inData {
					inData = -1
				}
				open = open[:len(open)-1]
				if unique && top == '{' {
					objects, names = closeObject(objects, names)
				}
				i++
				continue
			}
			if raw[i] != ',' {
				return false, -1
			}
			i = SkipSpace(raw, i+1)
			if top == '{' {
				start := i
				end := 0
				if end, i = validKey(raw, i); i < 0 {
					return false, -1
				}
				dataKey = deferMin > 0 && string(raw[start:end]) == `"data"`
				if unique {
					var fresh bool
					if names, fresh = addName(raw, names, &objects[len(objects)-1], start, end); !fresh {
						return false, start
					}
				}
			}
			break
		}
	}
}

// validKey reads an object member's name and colon at raw[i], and returns the index
// after the name and where its value starts, or -1 as the latter.
func validKey(raw []byte, i int) (end, value int) {
	if i >= len(raw) || raw[i] != '"' {
		return 0, -1
	}
	if end = validString(raw, i); end < 0 {
		return 0, -1
	}
	i = SkipSpace(raw, end)
	if i >= len(raw) || raw[i] != ':' {
		return 0, -1
	}
	return end, SkipSpace(raw, i+1)
}

// validString returns the index after the string starting at raw[i], or -1. Like
// encoding/json, it takes any byte but a control character, unchecked as UTF-8.
func validString(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return j + 1
		case c < 0x20:
			return -1
		case c == '\\':
			j++
			if j >= len(raw) {
				return -1
			}
			switch raw[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(raw) {
					return -1
				}
				for _, h := range raw[j+1 : j+5] {
					if !isHex(h) {
						return -1
					}
				}
				j += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// NumberEnd returns the index after the JSON number (RFC 8259's grammar,
// -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?) that starts at b[i], or -1 when none does.
func NumberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// validLiteral returns the index after word at raw[i], or -1.
func validLiteral(raw []byte, i int, word string) int {
	if len(raw)-i < len(word) || string(raw[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// SkipSpace returns the index of the first byte at or after b[i] that is not JSON
// white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
