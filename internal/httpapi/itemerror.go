package httpapi

import "github.com/inferd/inferd/gen/api"

// eachItem reports whether a batch's on_error asks for its items to fail alone.
func eachItem(onError *api.BatchOnError) bool {
	return onError != nil && *onError == api.Continue
}

// itemError is the entry of item_errors for the item at index, which failed alone
// with err: the status, code and detail a refusal of the whole batch would have had.
// Only input errors fail an item alone, and their detail is the client's to read.
func itemError(index int, err error) api.BatchItemError {
	status, code := classify(err)
	return api.BatchItemError{Index: index, Status: status, Code: code, Detail: err.Error()}
}
