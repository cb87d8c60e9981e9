// Package problem is the vocabulary of the API's refusals that the handler packages
// share: the problem codes of the contract, and the errors a handler returns to be
// answered with a status and code of its choosing. httpapi turns every error into the
// problem document (RFC 9457) it answers with.
package problem
