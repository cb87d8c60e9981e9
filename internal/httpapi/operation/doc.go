// Package operation reads the contract's operations once, at start, into one table:
// for each its id, method and route pattern, the scope and security it requires,
// whether it takes a body, and which of the request paths of httpapi serves it (the
// generic validator, the one-pass predict path or the Open Inference Protocol's infer
// path). Every middleware of httpapi consults this table, so openapi.yaml stays the
// one list of what there is and who may call it, walked once.
package operation
