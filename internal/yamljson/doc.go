// Package yamljson converts a YAML document to JSON without passing numbers through
// float64: 12345678901234567890 and 1e400 come out as written, so a JSON copy of a
// contract shows the same examples as its YAML.
package yamljson
