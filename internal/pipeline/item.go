package pipeline

import (
	"context"
	"strconv"
)

type batchKey struct{}

// WithBatch records whether the items of a run came from a batch request, so input
// errors can name the field the client sent: "items[0]" for a batch of one, "data" for
// a single request. The HTTP layer and job executors set it; a pipeline runs the same
// either way.
func WithBatch(ctx context.Context, batch bool) context.Context {
	return context.WithValue(ctx, batchKey{}, batch)
}

// ItemField names item i of a run of n items in an error message: "data" for a single
// request and "items[i]" for a batch. When the context does not say (see WithBatch), a
// run of one item is taken for a single request.
func ItemField(ctx context.Context, i, n int) string {
	batch, ok := ctx.Value(batchKey{}).(bool)
	if !ok {
		batch = n != 1
	}
	if !batch {
		return "data"
	}
	return "items[" + strconv.Itoa(i) + "]"
}
