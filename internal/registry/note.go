package registry

import "context"

// RouteNote is where routing sent a call, for a caller that reports it after the call
// (the access log): Predict and Infer fill in the one a context carries under
// RouteNoteKey once routing has chosen a version, so that a call that then fails
// (an invalid input, an execution error) still names its version.
type RouteNote struct{ Model, Version string }

type routeNoteKey struct{}

// RouteNoteKey is the context key of a *RouteNote. A caller whose context type answers
// Value itself may hand one out without a context.WithValue per call.
var RouteNoteKey any = routeNoteKey{}

// noteRoute fills in ctx's RouteNote, if it carries one.
func noteRoute(ctx context.Context, model, version string) {
	if n, ok := ctx.Value(RouteNoteKey).(*RouteNote); ok {
		n.Model, n.Version = model, version
	}
}
