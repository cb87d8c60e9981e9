// Package testkit is what tests of several packages share and no one package owns:
// Eventually, which waits for a condition with a bound instead of sleeping for a
// guessed time, SameJSON, which compares two JSON texts value for value with
// numbers digit for digit, Clock, a fake time source that moves only when told, and
// CopyDir, a model repository copied for a test to change.
package testkit
