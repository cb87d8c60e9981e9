// Package listen sits between the server's listening socket and net/http. It caps
// the connections open at once, in all and per peer address, closing the ones past a
// cap as soon as they are accepted, before any byte of them is read; and on shutdown it
// stops the kernel from taking new connections while the ones it already took are
// served (Quiesce), so that closing the socket resets none of them.
package listen
