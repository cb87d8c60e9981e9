// Package readmetest compares what a command or a call answered with what README.md or
// a page of docs/ shows for it, in the README's shorthand: "..." as a JSON value stands
// for any value (a timestamp, an id), "..." in text for any run of characters, and
// ", ...]" ends a JSON array whose further elements are not shown. The examples are
// checked by tests in several packages (curl calls, inferctl, the SDKs); they share
// this one reading, and this package's own tests check that every relative link of
// those documents resolves.
package readmetest
