package httpapi

import (
	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/problem"
)

// eachItem reports whether a batch's on_error asks for its items to fail alone.
func eachItem(onError *api.BatchOnError) bool {
	return onError != nil && *onError == api.Continue
}

// itemError is the entry of item_errors for the item at index, which failed alone
// with err: the status, code and detail a refusal of the whole batch would have had.
// Only input errors fail an item alone, and their detail is the client's to read.
func itemError(index int, err error) api.BatchItemError {
	kind, code := problem.Classify(err)
	return api.BatchItemError{Index: index, Status: kind.HTTPStatus(), Code: code, Detail: err.Error()}
}
