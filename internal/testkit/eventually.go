package testkit

import (
	"fmt"
	"testing"
	"time"
)

// The polls start fast, so that a condition that holds a moment later costs a
// moment, and slow down to a bound, so that a long wait on a loaded machine does not
// spend its CPU on polling what it waits for.
const (
	firstPoll = time.Millisecond
	lastPoll  = 50 * time.Millisecond
)

// Eventually polls cond, with a backoff from a millisecond to 50 ms, until it holds;
// after timeout it fails the test (tb.Fatalf) with msgAndArgs, a format and its
// arguments. An argument that is a func() string is called when the message is
// written, so that it can say what cond saw last. Only the goroutine running the
// test may call it, as with tb.Fatalf.
func Eventually(tb testing.TB, timeout time.Duration, cond func() bool, msgAndArgs ...any) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for wait := firstPoll; !cond(); wait = min(2*wait, lastPoll) {
		if time.Now().After(deadline) {
			tb.Fatalf("not within %s: %s", timeout, message(msgAndArgs))
		}
		time.Sleep(wait)
	}
}

// message formats msgAndArgs, calling the arguments that are a func() string.
func message(msgAndArgs []any) string {
	if len(msgAndArgs) == 0 {
		return "the condition"
	}
	format, ok := msgAndArgs[0].(string)
	if !ok {
		return fmt.Sprint(msgAndArgs...)
	}
	args := make([]any, len(msgAndArgs)-1)
	for i, a := range msgAndArgs[1:] {
		if f, ok := a.(func() string); ok {
			a = f()
		}
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}
