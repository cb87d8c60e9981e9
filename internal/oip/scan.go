package oip

import (
	"encoding/json"

	"github.com/inferd/inferd/internal/jsonscan"
)

// Decode checks a request's JSON once (jsonscan.CheckDeferring, which answers as
// json.Valid but leaves long flat arrays of data to decodeData, which checks them as it
// reads them) and then takes it apart with jsonscan's walkers, which trust it:
// encoding/json would scan a megabyte of tensor data again for every level it decodes.

// checkHuge refuses a member holding a number beyond a float64: no JSON reader of the
// contract's clients can hold one. Tensor data is checked element by element against
// its datatype instead, so Decode runs this on the rest.
func checkHuge(where string, raw json.RawMessage) error {
	if n := jsonscan.HugeNumber(raw); n != "" {
		return fail("%s: the number %.40s is beyond the range of a double (about 1.8e308), which JSON readers cannot hold", where, n)
	}
	return nil
}
