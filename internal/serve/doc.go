// Package serve is the vocabulary of serving models that the registry and the
// protocols over it share: a version's load state, its listing entry and statistics,
// and the errors a call on a model can end in. It holds types and values only, below
// both, so that a protocol (oip) can declare the registry it needs as an interface
// without importing the registry.
package serve
