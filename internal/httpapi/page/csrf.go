package page

import (
	"net/http"

	"github.com/inferd/inferd/internal/problem"
)

// crossOrigin is net/http's check of Sec-Fetch-Site and Origin against Host.
var crossOrigin = http.NewCrossOriginProtection()

// sameOriginWrites refuses a write (any method but GET, HEAD and OPTIONS) that a
// browser sent from another site. The queue dashboard takes its key as HTTP Basic
// credentials, which browsers cache and attach to any request for the origin, so a
// page on another site could otherwise pause the queue with a plain form POST.
// Requests without Sec-Fetch-Site or Origin (curl, scripts) are not browsers' and pass.
func (p Pages) sameOriginWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := crossOrigin.Check(r); err != nil {
			p.problem(w, r, http.StatusForbidden, problem.CodeForbidden,
				"the queue dashboard takes no cross-site writes ("+err.Error()+"); use it from its own pages, or without a browser")
			return
		}
		next.ServeHTTP(w, r)
	})
}
