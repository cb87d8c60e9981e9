package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// The shorthand of expected output, as in the README: "..." as a JSON value stands for
// any value, "..." in text for any run of characters, and ", ...]" ends a JSON array
// whose further elements are not shown.
const anyValue = "..."

var openArray = regexp.MustCompile(`,\s*\.\.\.\s*\]`)

const moreItems = "\u2026more"

// matchLine reports whether a line of output is what want shows: JSON compared as a
// subset (members the answer has beyond want are fine), anything else as text.
func matchLine(want, got string) error {
	want, got = strings.TrimRight(want, " "), strings.TrimRight(got, " ")
	if w, ok := decode(openArray.ReplaceAllString(want, `,"`+moreItems+`"]`)); ok {
		g, ok := decode(got)
		if !ok {
			return fmt.Errorf("not JSON: %s", got)
		}
		if path, ok := subset(w, g, "$"); !ok {
			return fmt.Errorf("at %s\n got: %s\nwant: %s", path, got, want)
		}
		return nil
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

// matchLines compares output line by line.
func matchLines(want, got string) error {
	w := strings.Split(strings.TrimRight(want, "\n"), "\n")
	g := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(w) != len(g) {
		return fmt.Errorf("%d lines, want %d:\n%s", len(g), len(w), got)
	}
	for i := range w {
		if err := matchLine(w[i], g[i]); err != nil {
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
