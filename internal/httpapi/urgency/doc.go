// Package urgency reads how soon a client wants its answer: a submission's priority
// and deadline, checked and made the job's, and a synchronous request's
// Request-Timeout, read exactly and turned into the context its prediction runs in,
// with the problem its passing answers.
package urgency
