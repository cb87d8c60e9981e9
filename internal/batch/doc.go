// Package batch coalesces concurrent calls to one model into fewer, larger calls
// (dynamic batching, as Triton does it): a call that finds the model idle runs at once,
// calls that arrive while the model is busy are gathered into the next one.
package batch
