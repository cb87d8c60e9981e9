package readmetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

const (
	anyValue  = "..."
	moreItems = "\u2026more" // what ", ...]" becomes before decoding: no JSON can hold it
)

var openArray = regexp.MustCompile(`,\s*\.\.\.\s*\]`)

// JSON reports whether got holds every member want shows, with the same value; got may
// have more members (a problem's request_id, say). Arrays match element for element and
// numbers digit for digit, unless want uses the shorthand.
func JSON(want string, got []byte) error {
	w, ok := decode(openArray.ReplaceAllString(want, `,"`+moreItems+`"]`))
	if !ok {
		return fmt.Errorf("the README's answer is not JSON: %s", want)
	}
	g, ok := decode(string(got))
	if !ok {
		return fmt.Errorf("not JSON: %s", got)
	}
	if path, ok := subset(w, g, "$"); !ok {
		return fmt.Errorf("at %s the answer differs from the README\n got: %s\nwant: %s", path, got, want)
	}
	return nil
}

// Line reports whether a line of output is what want shows: JSON compared as JSON does,
// anything else as text.
func Line(want, got string) error {
	want, got = strings.TrimRight(want, " "), strings.TrimRight(got, " ")
	if _, ok := decode(openArray.ReplaceAllString(want, `,"`+moreItems+`"]`)); ok {
		return JSON(want, []byte(got))
	}
	parts := strings.Split(want, anyValue)
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got) {
		return fmt.Errorf("\n got: %s\nwant: %s", got, want)
	}
	return nil
}

// Lines compares output line by line with Line.
func Lines(want, got string) error {
	w := strings.Split(strings.TrimRight(want, "\n"), "\n")
	g := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(w) != len(g) {
		return fmt.Errorf("%d lines, want %d:\n%s", len(g), len(w), got)
	}
	for i := range w {
		if err := Line(w[i], g[i]); err != nil {
			return fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	return nil
}

func decode(s string) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}

func subset(want, got any, path string) (string, bool) {
	if want == anyValue {
		return path, got != nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			if p, ok := subset(wv, g[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if n := len(w); n > 0 && w[n-1] == moreItems {
			w = w[:n-1]
			if ok && len(g) > len(w) {
				g = g[:len(w)]
			}
		}
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(want, got)
}
