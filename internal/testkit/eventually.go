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

// Condition is what Eventually waits on: a func() bool, or a func() (bool, string)
// that also says what it saw, for the failure's message.
type Condition interface {
	func() bool | func() (bool, string)
}

// Eventually polls cond, with a backoff from a millisecond to 50 ms, until it holds;
// after timeout it fails the test (tb.Fatalf) with msgAndArgs, a format and its
// arguments, and what cond said last when it says anything. An argument that is a
// func() string is called when the message is written, so that it can show the
// state cond saw. Only the goroutine running the test may call it, as with
// tb.Fatalf; so may cond call tb.Fatal.
func Eventually[C Condition](tb testing.TB, timeout time.Duration, cond C, msgAndArgs ...any) {
	tb.Helper()
	var check func() (bool, string)
	switch c := any(cond).(type) {
	case func() bool:
		check = func() (bool, string) { return c(), "" }
	case func() (bool, string):
		check = c
	}
	deadline := time.Now().Add(timeout)
	for wait := firstPoll; ; wait = min(2*wait, lastPoll) {
		ok, last := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if last != "" {
				tb.Fatalf("not within %s: %s (last: %s)", timeout, message(msgAndArgs), last)
			}
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
