package contractfuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// Target is what the server under test holds, learned before generating, so that valid
// requests reach models, versions and jobs that exist.
type Target struct {
	// Models maps each model name to its versions.
	Models map[string][]string
	// Features maps a model name to the feature names its preprocessing takes, for
	// data shaped like the model's input; models without them get arbitrary data.
	Features map[string][]string
	// JobIDs are jobs that exist.
	JobIDs []string
	// Keys maps a scope to a key holding only it; AdminKey holds every scope.
	Keys     map[string]string
	AdminKey string
	// MaxRequestBytes and MaxBatchItems are the server's limits.
	MaxRequestBytes int
	MaxBatchItems   int
	// Unserved names operations this server answers 404 whatever the request (the
	// queue dashboard without a queue): their mistakes need only get a 4xx.
	Unserved map[string]bool
}

// Generator makes the requests of one run; the same seed makes the same requests.
type Generator struct {
	spec *openapi3.T
	tgt  Target
	v    values
}

// New returns a generator over spec's operations for the server described by tgt.
func New(spec *openapi3.T, tgt Target, seed uint64) *Generator {
	return &Generator{spec: spec, tgt: tgt, v: values{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}}
}

// Requests returns n requests for op: about a third valid, the rest client mistakes
// and edge cases, each built from a valid one by one mutation.
func (g *Generator) Requests(op Operation, n int) []Request {
	out := make([]Request, 0, n)
	for len(out) < n {
		req := g.valid(op)
		if g.v.chance(0.35) {
			if op.Binary && g.v.chance(0.5) {
				g.toBinary(op, &req)
			}
		} else {
			muts := g.mutations(op)
			for tries := 0; tries < 20; tries++ {
				m := muts[g.v.pick(len(muts))]
				// Each try starts from the valid request: a mutation that does not
				// apply may have changed its copy half-way (made it binary, say).
				try := req.clone()
				if m.apply(g, op, &try) {
					req = try
					req.Kind, req.What, req.Want = m.kind, m.name, m.want
					if g.tgt.Unserved[op.ID] {
						req.Want = 0
					}
					break
				}
			}
		}
		out = append(out, req)
	}
	return out
}

// valid builds a request the contract allows, aimed at things that exist most of the
// time.
func (g *Generator) valid(op Operation) Request {
	req := Request{Operation: op.ID, Kind: Valid, Method: op.Method, Header: http.Header{}}
	params := map[string]string{}
	for _, p := range op.PathParams {
		params[p.Name] = g.param(p, params)
	}
	req.template, req.params = op.Path, params
	req.Path = fillPath(op.Path, params, url.PathEscape)
	if op.Secured {
		req.Header.Set("X-API-Key", g.key(op.Scope))
	}
	if op.Body != nil {
		body := g.v.valid(op.Body, 0)
		if obj, ok := body.(map[string]any); ok {
			g.steer(obj)
		}
		g.setJSON(&req, body)
	}
	return req
}

// param returns a valid value of a path parameter: an existing model, version or job
// most of the time, else whatever the schema allows.
func (g *Generator) param(p *openapi3.Parameter, earlier map[string]string) string {
	if g.v.chance(0.7) {
		switch p.Name {
		case "job_id":
			if len(g.tgt.JobIDs) > 0 {
				return g.tgt.JobIDs[g.v.pick(len(g.tgt.JobIDs))]
			}
			return uuid.NewString()
		case "name", "model_name":
			names := slices.Sorted(maps.Keys(g.tgt.Models))
			return names[g.v.pick(len(names))]
		case "version":
			if vs := g.tgt.Models[earlier["name"]]; len(vs) > 0 {
				return vs[g.v.pick(len(vs))]
			}
		case "model_version":
			if vs := g.tgt.Models[earlier["model_name"]]; len(vs) > 0 {
				return vs[g.v.pick(len(vs))]
			}
		}
	}
	s := g.v.valid(p.Schema, 0)
	if str, ok := s.(string); ok {
		return str
	}
	return fmt.Sprint(s)
}

// key returns a key that holds scope (any key when scope is empty).
func (g *Generator) key(scope string) string {
	if k, ok := g.tgt.Keys[scope]; ok && g.v.chance(0.7) {
		return k
	}
	if scope == "" {
		scopes := slices.Sorted(maps.Keys(g.tgt.Keys))
		return g.tgt.Keys[scopes[g.v.pick(len(scopes))]]
	}
	return g.tgt.AdminKey
}

// steer points a prediction request at an existing model and version most of the
// time, with data shaped like the model's input, so that requests reach pipelines
// rather than stop at model_not_found.
func (g *Generator) steer(obj map[string]any) {
	if _, ok := obj["model"]; !ok || g.v.chance(0.15) {
		return
	}
	names := slices.Sorted(maps.Keys(g.tgt.Models))
	name := names[g.v.pick(len(names))]
	obj["model"] = name
	if vs := g.tgt.Models[name]; g.v.chance(0.5) && len(vs) > 0 {
		obj["version"] = vs[g.v.pick(len(vs))]
	} else {
		delete(obj, "version")
	}
	features := g.tgt.Features[name]
	if len(features) == 0 || g.v.chance(0.3) {
		return
	}
	if _, ok := obj["data"]; ok {
		obj["data"] = g.shaped(features)
	}
	if _, ok := obj["items"]; ok {
		items := []any{}
		for range 1 + g.v.pick(4) {
			items = append(items, g.shaped(features))
		}
		obj["items"] = items
	}
}

// shaped is model input: the features as an array or by name, numbers drawn from
// plain measurements and the odd ones.
func (g *Generator) shaped(features []string) any {
	n := len(features)
	if g.v.chance(0.2) {
		n = g.v.pick(n + 2) // one too few or too many, or none
	}
	num := func() any {
		if g.v.chance(0.3) {
			return json.Number(oddNumbers[g.v.pick(len(oddNumbers))])
		}
		return json.Number(fmt.Sprintf("%.2f", g.v.r.Float64()*10))
	}
	if g.v.chance(0.5) {
		out := []any{}
		for range n {
			out = append(out, num())
		}
		return out
	}
	out := map[string]any{}
	for i := range min(n, len(features)) {
		out[features[i]] = num()
	}
	return out
}

func (g *Generator) setJSON(req *Request, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		panic(err) // generated values are always encodable
	}
	req.Body, req.HasBody = b, true
	ct := "application/json"
	if g.v.chance(0.1) {
		ct = "application/json; charset=utf-8"
	}
	req.Header.Set("Content-Type", ct)
}

func (g *Generator) bodyObject(req *Request) map[string]any {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil
	}
	return obj
}

// fillPath replaces each {param} of a path template with its value, encoded by enc.
func fillPath(template string, params map[string]string, enc func(string) string) string {
	names := slices.Sorted(maps.Keys(params))
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	out := template
	for _, name := range names {
		out = strings.ReplaceAll(out, "{"+name+"}", enc(params[name]))
	}
	return out
}

// escapeAll percent-encodes every byte, which a server must read as the plain string.
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}
