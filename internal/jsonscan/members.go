package jsonscan

import (
	"encoding/json"
	"hash/maphash"
)

// linearNames is how many names an object holds before they are indexed by hash: a
// new name is compared with each earlier one up to there (a signature first), which
// for the few members of a request's objects is faster than hashing and allocates
// nothing.
const linearNames = 16

// name is an object member's name, the JSON string at raw[start].
type name struct {
	start int
	// sig is the length and first and last bytes of the name's text (as encoding/json
	// decodes it), which names that differ there differ in, and notPlain.
	sig uint64
}

// notPlain marks the sig of a name whose bytes are not its text: it holds an escape,
// or a byte that is not ASCII and may be invalid UTF-8, which encoding/json reads as
// U+FFFD.
const notPlain = 1 << 63

// text returns a name's text, as encoding/json reads it, when its bytes are not it.
func (n name) text(raw []byte) string {
	if n.sig&notPlain == 0 {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw[n.start:validString(raw, n.start)], &s) // valid: scanned
	return s
}

// newName reads the name raw[start:end].
func newName(raw []byte, start, end int) name {
	b := raw[start+1 : end-1]
	for _, c := range b {
		if c == '\\' || c >= 0x80 {
			n := name{start: start, sig: notPlain}
			return name{start: start, sig: notPlain | signature(n.text(raw))}
		}
	}
	return name{start: start, sig: signature(b)}
}

func signature[T []byte | string](text T) uint64 {
	if len(text) == 0 {
		return 0
	}
	return uint64(len(text))<<16 | uint64(text[0])<<8 | uint64(text[len(text)-1])
}

// sameName compares two names of one signature.
func sameName(raw []byte, a, b name) bool {
	if a.sig&notPlain == 0 && b.sig&notPlain == 0 {
		n := int(a.sig >> 16)
		return string(raw[a.start+1:a.start+1+n]) == string(raw[b.start+1:b.start+1+n])
	}
	at, bt := a.text(raw), b.text(raw)
	if a.sig&notPlain == 0 {
		return bt == string(raw[a.start+1:a.start+1+len(bt)])
	}
	if b.sig&notPlain == 0 {
		return at == string(raw[b.start+1:b.start+1+len(at)])
	}
	return at == bt
}

// hash keys a wide object's index.
func (n name) hash(raw []byte) uint64 {
	if n.sig&notPlain != 0 {
		return maphash.String(seed, n.text(raw))
	}
	return maphash.Bytes(seed, raw[n.start+1:n.start+1+int(n.sig>>16)])
}

// seed keys the hash of wide objects' names, so that no body can be made of names
// whose hashes collide.
var seed = maphash.MakeSeed()

// object is an open object: its names are names[first:] until it has more than
// linearNames; then index holds them all, by hash, each at its start in the text.
type object struct {
	first int
	index map[uint64]int
}

// openObject starts an object whose names follow names.
func openObject(objects []object, names []name) []object {
	return append(objects, object{first: len(names)})
}

// closeObject ends the innermost object, dropping its names.
func closeObject(objects []object, names []name) ([]object, []name) {
	top := len(objects) - 1
	return objects[:top], names[:objects[top].first]
}

// addName records the name raw[start:end] in o, the innermost object, whose names
// end names; false when o has it already. The slices are passed and returned rather
// than kept in a struct behind a pointer, so that their first arrays stay on Check's
// stack.
func addName(raw []byte, names []name, o *object, start, end int) ([]name, bool) {
	n := newName(raw, start, end)
	if o.index != nil {
		return names, insert(raw, o.index, n)
	}
	sig := n.sig &^ notPlain
	for i := o.first; i < len(names); i++ {
		if names[i].sig&^notPlain == sig && sameName(raw, names[i], n) {
			return names, false
		}
	}
	names = append(names, n)
	if len(names)-o.first > linearNames {
		o.index = make(map[uint64]int, 4*linearNames)
		for _, prev := range names[o.first:] {
			insert(raw, o.index, prev) // distinct, as compared above
		}
		names = names[:o.first]
	}
	return names, true
}

// insert indexes n by its hash, probing on from there past other names of the same
// hash; false when the index has n already.
func insert(raw []byte, index map[uint64]int, n name) bool {
	for h := n.hash(raw); ; h++ {
		at, taken := index[h]
		if !taken {
			index[h] = n.start
			return true
		}
		if sameName(raw, newName(raw, at, validString(raw, at)), n) {
			return false
		}
	}
}
