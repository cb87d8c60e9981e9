package main

import (
	"bytes"
	"fmt"
)

// spliceSection replaces the section of page (benchmarks.md) between the markers start
// and end with section, markers included; a page without one gets it before make
// bench-cluster's section, or at its end. what names the section in an error.
func spliceSection(page, section []byte, start, end, what string) ([]byte, error) {
	from := bytes.Index(page, []byte(start))
	to := bytes.Index(page, []byte(end))
	var out bytes.Buffer
	switch {
	case from >= 0 && to > from:
		out.Write(page[:from])
		out.Write(section)
		out.Write(bytes.TrimPrefix(page[to+len(end):], []byte("\n")))
	case from >= 0 || to >= 0:
		return nil, fmt.Errorf("benchmarks.md has one of the %s section's markers without the other", what)
	default:
		at := bytes.Index(page, []byte(clusterSectionMarker))
		if at < 0 {
			at = len(page)
		}
		out.Write(page[:at])
		if at > 0 && !bytes.HasSuffix(page[:at], []byte("\n\n")) {
			out.WriteString("\n")
		}
		out.Write(section)
		if at < len(page) {
			out.WriteString("\n")
		}
		out.Write(page[at:])
	}
	return out.Bytes(), nil
}
