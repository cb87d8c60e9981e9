package jsonscan

// Span is the text raw[Start:End].
type Span struct{ Start, End int }

// CheckDeferring is Check but for the arrays of at least min bytes that hold no
// array, object or string (a tensor's data, megabytes of numbers): those it only
// delimits, as ValueEnd does, and returns, in the order of the text, for the caller
// to check, as it reads them or with Valid. A decoder that reads each number anyway
// so walks the bulk of a body once, not twice.
//
// nil says raw is valid JSON if every span returned is; the walkers of this package
// read raw as they would valid text, each span a value. An error says raw is not
// valid, but not which error Check gives: a span's mistake comes before what the
// error reports, so the caller asks Check.
func CheckDeferring(raw []byte, min int) ([]Span, error) {
	var spans []Span
	ok, dup := scanDeferring(raw, true, max(min, 2), &spans)
	switch {
	case ok:
		return spans, nil
	case dup >= 0:
		return nil, duplicateAt(raw, dup)
	}
	return nil, ErrSyntax
}
