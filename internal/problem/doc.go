// Package problem is the vocabulary of the API's refusals, whichever protocol answers
// them: the problem codes of the contract, the kind of fault each is (Kind), the
// errors a handler returns to be answered with a kind and code of its choosing, and
// Classify, the one mapping from the domain's errors to their kind and code. It is a
// domain package: httpapi writes a refusal as the problem document (RFC 9457) of its
// kind's HTTP status, grpcapi as the status of its kind's gRPC code.
package problem
