// Package jsonscan checks JSON text on the request path. Check says whether bytes are
// one JSON value (encoding/json's answer, as Valid gives it) whose objects name each
// member once, in a loop that reads a run of digits or string bytes at a time rather
// than stepping a state machine through a call per byte: every predict body and
// inference request is checked once before it is decoded, and a tensor's data can be
// megabytes of numbers. CheckDeferring leaves such arrays to a caller that checks them
// as it reads them, so that a body is walked once. SkipSpace and NumberEnd are its
// tokens.
//
// It is also the one place that walks JSON text byte by byte: the walkers of text
// Check has accepted (StringEnd, ValueEnd, Members, Elements, HugeNumber), which oip
// and the one-pass predict decoder take bodies apart with, the flat arrays of numbers
// to_tensor reads, Plain and UnescapeHTML; and AppendCanonical, the one text of a JSON
// value however it is spelled. Each is fuzzed against encoding/json, and
// jsonscantest holds the tokenizer oracle the callers' tests share.
package jsonscan
