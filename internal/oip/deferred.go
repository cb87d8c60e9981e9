package oip

import (
	"errors"

	"github.com/inferd/inferd/internal/jsonscan"
)

// deferMin is the length from which Decode leaves a flat array of numbers (tensor
// data) unchecked by jsonscan.CheckDeferring, to be checked as decodeData reads it:
// the body is walked once. Shorter arrays are checked with the rest, in the pass
// they cost little in.
const deferMin = 1024

// errSyntax is the answer of decodeData's walk to text that is not JSON; decode
// replaces it with jsonscan.Check's, as any error of a request whose header it has
// not checked whole.
var errSyntax = errors.New("not valid JSON")

// deferred is what a decode has left of its header's check: the spans
// jsonscan.CheckDeferring stepped over, and those of them FP32 or FP64 data has
// checked as it was read. The rest are checked by checkRest.
type deferred struct {
	header []byte
	spans  []jsonscan.Span
	// done are the data values read and checked, as spans of header.
	done []jsonscan.Span
}

// read records that raw, a value of d.header, has been checked.
func (d *deferred) read(raw []byte) {
	if len(d.spans) == 0 || len(raw) == 0 {
		return
	}
	// raw is a slice of header (jsonscan's walkers do not copy), which both end at
	// the same capacity.
	start := cap(d.header) - cap(raw)
	if start < 0 || start+len(raw) > len(d.header) || &d.header[start] != &raw[0] {
		return
	}
	d.done = append(d.done, jsonscan.Span{Start: start, End: start + len(raw)})
}

// checkRest checks the spans no data checked as it was read: errSyntax when one is
// not valid JSON.
func (d *deferred) checkRest() error {
spans:
	for _, s := range d.spans {
		for _, r := range d.done {
			if r.Start <= s.Start && s.End <= r.End {
				continue spans
			}
		}
		if !jsonscan.Valid(d.header[s.Start:s.End]) {
			return errSyntax
		}
	}
	return nil
}
