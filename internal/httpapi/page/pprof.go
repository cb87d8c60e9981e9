package page

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/problem"
)

// pprofPath is where net/http/pprof's handlers are mounted; openapi.yaml declares each
// path under it.
const pprofPath = "/debug/pprof"

// Pprof serves the profiles the contract (ops) declares under /debug/pprof, for admin
// keys (Admin), with net/http/pprof's handlers.
func (p Pages) Pprof(r chi.Router, ops *operation.Table) error {
	if p.Admin == nil {
		return errors.New("page: the profiles need an admin guard")
	}
	var cpu, trace sync.Mutex
	handlers := map[string]http.Handler{
		pprofPath:              http.HandlerFunc(pprofIndex),
		pprofPath + "/profile": p.oneAtATime(&cpu, "a CPU profile", http.HandlerFunc(pprof.Profile)),
		pprofPath + "/trace":   p.oneAtATime(&trace, "an execution trace", http.HandlerFunc(pprof.Trace)),
		pprofPath + "/cmdline": http.HandlerFunc(pprof.Cmdline),
		pprofPath + "/symbol":  http.HandlerFunc(pprof.Symbol),
	}
	for _, op := range ops.All() {
		path := op.Pattern
		name, ok := strings.CutPrefix(path, pprofPath+"/")
		if !ok && path != pprofPath || op.Method != http.MethodGet {
			continue
		}
		h := handlers[path]
		if h == nil {
			h = pprof.Handler(name)
		}
		r.Method(http.MethodGet, path, p.Admin(p.noBody(p.checkedQuery(queryLimits(op.Spec), h))))
		delete(handlers, path)
	}
	if len(handlers) > 0 {
		return fmt.Errorf("openapi.yaml does not declare %d of the profiling paths", len(handlers))
	}
	return nil
}

// oneAtATime answers 409 to a second CPU profile (or trace) while one is recorded:
// net/http/pprof would answer 500, which is no server fault.
func (p Pages) oneAtATime(mu *sync.Mutex, what string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !mu.TryLock() {
			w.Header().Set("Retry-After", strconv.Itoa(problem.RetryAfterSeconds))
			p.problem(w, r, http.StatusConflict, problem.CodeProfileInProgress, what+" is being recorded; retry when it ends")
			return
		}
		defer mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// queryLimits reads the integer query parameters of op and their ranges from the
// contract.
func queryLimits(op *openapi3.Operation) map[string][2]int {
	out := map[string][2]int{}
	for _, p := range op.Parameters {
		if p.Value == nil || p.Value.In != openapi3.ParameterInQuery || p.Value.Schema == nil || p.Value.Schema.Value == nil {
			continue
		}
		sch := p.Value.Schema.Value
		lim := [2]int{math.MinInt, math.MaxInt}
		if sch.Min != nil {
			lim[0] = int(*sch.Min)
		}
		if sch.Max != nil {
			lim[1] = int(*sch.Max)
		}
		out[p.Value.Name] = lim
	}
	return out
}

// checkedQuery answers 400 to a query parameter outside the range the contract gives
// it: net/http/pprof would read a bad value as the default, or answer a plain-text
// error.
func (p Pages) checkedQuery(limits map[string][2]int, next http.Handler) http.Handler {
	if len(limits) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		for name, lim := range limits {
			if !q.Has(name) {
				continue
			}
			if n, err := strconv.Atoi(q.Get(name)); err != nil || n < lim[0] || n > lim[1] {
				p.problem(w, r, http.StatusBadRequest, problem.CodeInvalidRequest,
					fmt.Sprintf("query parameter %q: want an integer from %d to %d", name, lim[0], lim[1]))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// pprofIndex is net/http/pprof's index page, served at /debug/pprof (the contract's
// paths end without a slash): its links are relative to /debug/pprof/, so the page
// says so in a base element.
func pprofIndex(w http.ResponseWriter, r *http.Request) {
	r2 := r.Clone(r.Context())
	r2.URL.Path = pprofPath + "/"
	rec := &bufferedResponse{header: w.Header()}
	pprof.Index(rec, r2)
	page := bytes.Replace(rec.body.Bytes(), []byte("<head>"), []byte(`<head><base href="pprof/">`), 1)
	w.WriteHeader(max(rec.status, http.StatusOK))
	_, _ = w.Write(page)
}

// bufferedResponse keeps a handler's answer so that it can be changed before it is
// sent.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(code int)        { b.status = code }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
