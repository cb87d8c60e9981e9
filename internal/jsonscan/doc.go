// Package jsonscan checks JSON text on the request path. Check says whether bytes are
// one JSON value (encoding/json's answer, as Valid gives it) whose objects name each
// member once, in a loop that reads a run of digits or string bytes at a time rather
// than stepping a state machine through a call per byte: every predict body and
// inference request is checked once before it is decoded, and a tensor's data can be
// megabytes of numbers. SkipSpace and NumberEnd are its tokens, for the scanners that
// walk JSON known to be valid (oip, the one-pass predict decoder) or read a flat array
// of numbers (to_tensor).
package jsonscan
