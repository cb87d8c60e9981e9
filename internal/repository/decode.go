package repository

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decodeStrict decodes node into the value v points to, with the yaml tags of its
// structs as the only fields allowed. Unlike yaml's KnownFields it reports every
// fault with the path of the field ("preprocess[1].standardize.std[2]"), which is
// what a person editing the file needs.
func decodeStrict(node *yaml.Node, v any, field string) error {
	return decodeValue(node, reflect.ValueOf(v).Elem(), field)
}

func decodeValue(n *yaml.Node, v reflect.Value, field string) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return decodeValue(n.Content[0], v, field)
	}
	if isNull(n) {
		v.Set(reflect.Zero(v.Type()))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(n, p.Elem(), field); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return decodeStruct(n, v, field)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return errorf(field, "expected a list, got %s", describe(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := decodeValue(c, s.Index(i), fmt.Sprintf("%s[%d]", field, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return errorf(field, "expected a mapping, got %s", describe(n))
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if m.MapIndex(reflect.ValueOf(key).Convert(v.Type().Key())).IsValid() {
				return errorf(join(field, key), "given twice")
			}
			e := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(n.Content[i+1], e, join(field, key)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), e)
		}
		v.Set(m)
		return nil
	}
	return decodeScalar(n, v, field)
}

func decodeStruct(n *yaml.Node, v reflect.Value, field string) error {
	if n.Kind != yaml.MappingNode {
		return errorf(field, "expected a mapping, got %s", describe(n))
	}
	fields := map[string]int{}
	var names []string
	for i := range v.NumField() {
		tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		fields[tag] = i
		names = append(names, tag)
	}
	seen := map[string]bool{}
	for i := 0; i < len(n.Content); i += 2 {
		key := n.Content[i].Value
		idx, ok := fields[key]
		if !ok {
			return errorf(join(field, key), "unknown field (fields: %s)", strings.Join(names, ", "))
		}
		if seen[key] {
			return errorf(join(field, key), "given twice")
		}
		seen[key] = true
		if err := decodeValue(n.Content[i+1], v.Field(idx), join(field, key)); err != nil {
			return err
		}
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

func decodeScalar(n *yaml.Node, v reflect.Value, field string) error {
	if v.Type() == durationType {
		d, err := time.ParseDuration(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			return errorf(field, "expected a duration such as 250ms or 2s, got %s", describe(n))
		}
		v.SetInt(int64(d))
		return nil
	}
	want := "a number"
	switch v.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		want = "a whole number"
	}
	if n.Kind != yaml.ScalarNode {
		return errorf(field, "expected %s, got %s", want, describe(n))
	}
	if v.Kind() == reflect.String && n.Tag != "!!str" {
		// "labels: [0, 1]" and "version: 2" mean the strings; accept what reads as one.
		if n.Tag != "!!int" && n.Tag != "!!float" {
			return errorf(field, "expected %s, got %s", want, describe(n))
		}
		v.SetString(n.Value)
		return nil
	}
	// yaml would read 1.5 into an int as 1 and "yes" into a bool; a config must say
	// what it means.
	ok := true
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		ok = n.Tag == "!!int"
	case reflect.Float64, reflect.Float32:
		ok = n.Tag == "!!int" || n.Tag == "!!float"
	case reflect.Bool:
		ok = n.Tag == "!!bool"
	}
	if !ok {
		return errorf(field, "expected %s, got %s", want, describe(n))
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return errorf(field, "expected %s, got %s", want, describe(n))
	}
	return nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// describe names what a node holds, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!null":
		return "nothing"
	case "!!bool":
		return n.Value
	}
	return n.Value
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}
