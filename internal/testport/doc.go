// Package testport picks TCP ports for the servers that tests start, and an address of
// the machine other than loopback for them to listen on.
//
// A port the kernel hands out for ":0" and that the test then closes and passes to a
// child process is in the ephemeral range, where the kernel keeps handing ports out to
// every outgoing connection and every other ":0" listener on the machine: under
// parallel test binaries one of them takes it before the child binds. Ports below that
// range are handed out by nobody but processes that ask for them by number.
package testport
