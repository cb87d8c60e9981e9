package problem

import (
	"context"
	"log/slog"
)

// InternalDetail answers every unexpected fault: its cause, which may hold internals,
// goes to the log under the request id instead.
const InternalDetail = "the server failed unexpectedly; quote the request_id when you report it"

// Wording words the domain's errors for a client, as REST and gRPC answer them alike.
type Wording struct {
	Log *slog.Logger
	// LoadErrorText words a version's load error without the server's paths.
	LoadErrorText func(error) string
}

// Word is the kind, code and detail of the refusal for a domain error. The detail is
// the error's own message, as domain errors are written to be read by the client;
// unexpected errors are logged with the request id (requestID, "" for none) and
// answered without their text, which may hold internals, a load error without the
// server's paths.
func (w *Wording) Word(ctx context.Context, requestID string, err error) (Kind, string, string) {
	if ctx.Err() != nil {
		// The client went away (or the server is stopping) mid-pipeline: whatever
		// failed did so because its context ended, which is no fault to log as one.
		w.Log.DebugContext(ctx, "request ended before its pipeline", "request_id", requestID, "error", err)
		return Unavailable, CodeCancelled, "the request was cancelled before its pipeline finished"
	}
	kind, code := Classify(err)
	detail := err.Error()
	if code == CodeInternalError {
		w.Log.ErrorContext(ctx, "unexpected error", "request_id", requestID, "error", err)
		detail = InternalDetail
	}
	if code == CodeModelUnavailable || code == CodeReloadFailed {
		// The reason is a load error, which may quote the server's paths.
		w.Log.DebugContext(ctx, "request refused: a version failed to load", "request_id", requestID, "error", err)
		detail = w.LoadErrorText(err)
	}
	if code == CodeExecutionError {
		w.Log.ErrorContext(ctx, "pipeline failed", "request_id", requestID, "error", err)
	}
	return kind, code, detail
}
