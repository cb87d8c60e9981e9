package jsonscantest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Duplicate walks valid JSON text with encoding/json's tokenizer, which decodes each
// member name as encoding/json reads it, and returns the first name met twice in one
// object, with the path to that object from the top (member names as strings, element
// indexes as ints); found is false when no object names a member twice.
func Duplicate(raw []byte) (name string, path []any, found bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a number beyond a double is valid JSON
	// at is the path being walked; siblings reuse its array, so the path found is
	// copied.
	var walk func(at []any) error
	walk = func(at []any) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, ok := k.(string)
				if !ok {
					return fmt.Errorf("a member name that is %T", k)
				}
				if seen[key] {
					name, path, found = key, slices.Clone(at), true
					return nil
				}
				seen[key] = true
				if err := walk(append(at, key)); err != nil || found {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(append(at, i)); err != nil || found {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	err = walk([]any{})
	return name, path, found, err
}
