package contractfuzz

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// mutation turns a valid request into a mistake or an edge case. apply reports whether
// it applies to the operation (and changed req).
type mutation struct {
	name  string
	kind  Kind
	want  int
	apply func(g *Generator, op Operation, req *Request) bool
}

// mutations lists the ways a client can get op wrong.
func (g *Generator) mutations(op Operation) []mutation {
	ms := []mutation{
		{"no API key", Invalid, http.StatusUnauthorized, func(_ *Generator, op Operation, req *Request) bool {
			req.Header.Del("X-API-Key")
			return op.Secured
		}},
		{"unknown API key", Invalid, http.StatusUnauthorized, func(g *Generator, op Operation, req *Request) bool {
			keys := []string{"nope", "dev-key ", strings.Repeat("k", 4096), "dev-key\t", "admin-key,dev-key", "' OR 1=1 --", "\u00e9"}
			req.Header.Set("X-API-Key", keys[g.v.pick(len(keys))])
			return op.Secured
		}},
		{"key without the scope", Invalid, http.StatusForbidden, func(g *Generator, op Operation, req *Request) bool {
			for _, scope := range slices.Sorted(maps.Keys(g.tgt.Keys)) {
				if scope != op.Scope {
					req.Header.Set("X-API-Key", g.tgt.Keys[scope])
					return op.Secured && op.Scope != ""
				}
			}
			return false
		}},
		{"method not allowed", Invalid, http.StatusMethodNotAllowed, func(g *Generator, op Operation, req *Request) bool {
			req.Method = otherMethod(g.spec, op.Path)
			return req.Method != ""
		}},
		{"unknown query parameter", Valid, 0, func(_ *Generator, _ Operation, req *Request) bool {
			req.Path += "?debug=1&model=nope&" + url.QueryEscape("a b") + "=%00"
			return true
		}},
		{"odd X-Request-ID", Valid, 0, func(g *Generator, _ Operation, req *Request) bool {
			ids := []string{strings.Repeat("r", 500), "a b", "x\u00e9", "", "<>", "ok-id_1.2:3"}
			req.Header.Set("X-Request-ID", ids[g.v.pick(len(ids))])
			return true
		}},
		{"path parameter too long", Invalid, 0, func(g *Generator, op Operation, req *Request) bool {
			return g.setParam(op, req, func(limit int) (string, bool) {
				return strings.Repeat("a", limit+1+g.v.pick(200)), limit > 0
			}, url.PathEscape)
		}},
		{"path parameter needing escapes", Valid, 0, func(g *Generator, op Operation, req *Request) bool {
			return g.setParam(op, req, func(limit int) (string, bool) {
				// As long as the schema allows, in runes, with every rune escaped.
				runes := []rune(strings.Repeat("\u00e9 %/?#;", 40))
				n := 1 + g.v.pick(max(limit, 1))
				if g.v.chance(0.3) {
					n = limit
				}
				return string(runes[:min(n, len(runes))]), limit > 0
			}, url.PathEscape)
		}},
		{"path parameter percent-encoded byte by byte", Valid, 0, func(g *Generator, op Operation, req *Request) bool {
			return len(op.PathParams) > 0 && g.reencode(req, escapeAll)
		}},
		{"odd path parameter", Odd, 0, func(g *Generator, op Operation, req *Request) bool {
			odd := []string{"%00", "%0A", "%FF", "%C0%AF", "..", ".", "%2E%2E", "%2e", "a%00b", "%25", "%2F", "*", "~"}
			v := odd[g.v.pick(len(odd))]
			return g.setParam(op, req, func(int) (string, bool) { return v, true }, func(s string) string { return s })
		}},
	}
	if op.Body == nil {
		return append(ms,
			mutation{"body on an operation that takes none", Invalid, http.StatusRequestEntityTooLarge, func(g *Generator, _ Operation, req *Request) bool {
				g.setJSON(req, map[string]any{"model": "echo", "data": 1})
				return true
			}},
			mutation{"chunked body on an operation that takes none", Invalid, http.StatusRequestEntityTooLarge, func(_ *Generator, _ Operation, req *Request) bool {
				req.Body, req.HasBody, req.Chunked = []byte("{}"), true, true
				return true
			}},
		)
	}
	ms = append(ms, bodyMutations()...)
	if op.Binary {
		ms = append(ms, binaryMutations()...)
	}
	return ms
}

// bodyMutations are the mistakes in a JSON request body.
func bodyMutations() []mutation {
	return []mutation{
		{"truncated JSON", Invalid, http.StatusBadRequest, func(g *Generator, _ Operation, req *Request) bool {
			if len(req.Body) < 2 {
				return false
			}
			req.Body = req.Body[:1+g.v.pick(len(req.Body)-1)]
			return true
		}},
		{"data after the JSON value", Invalid, http.StatusBadRequest, func(g *Generator, _ Operation, req *Request) bool {
			tails := []string{"x", "{}", "]", "}", string(req.Body), "\n{\"model\":\"echo\"}", " null", "0"}
			req.Body = append(req.Body, tails[g.v.pick(len(tails))]...)
			return true
		}},
		{"not an object", Invalid, http.StatusBadRequest, func(g *Generator, _ Operation, req *Request) bool {
			others := []string{"[]", "null", `"predict"`, "42", "true", "[{}]"}
			req.Body = []byte(others[g.v.pick(len(others))])
			return true
		}},
		{"empty body", Invalid, http.StatusBadRequest, func(_ *Generator, op Operation, req *Request) bool {
			if !op.BodyRequired {
				return false
			}
			req.Body = nil
			return true
		}},
		{"no body, which the operation does not require", Valid, 0, func(_ *Generator, op Operation, req *Request) bool {
			if op.BodyRequired {
				return false
			}
			req.Body, req.HasBody = nil, false
			req.Header.Del("Content-Type")
			return true
		}},
		{"wrong content type", Invalid, http.StatusUnsupportedMediaType, func(g *Generator, _ Operation, req *Request) bool {
			types := []string{"text/plain", "application/xml", "application/x-www-form-urlencoded", "application/jsonx",
				"multipart/form-data; boundary=x", "application/json-seq", "json", "application/json;;", "*/*"}
			req.Header.Set("Content-Type", types[g.v.pick(len(types))])
			return true
		}},
		{"no content type", Invalid, http.StatusUnsupportedMediaType, func(_ *Generator, op Operation, req *Request) bool {
			if op.OIP {
				return false
			}
			req.Header.Del("Content-Type")
			return true
		}},
		// Triton never reads a Content-Type, so its clients send none (tritonclient) or
		// application/octet-stream on every POST (its asyncio client).
		{"no content type, as Triton's clients send", Valid, 0, func(_ *Generator, op Operation, req *Request) bool {
			if !op.OIP {
				return false
			}
			req.Header.Del("Content-Type")
			return true
		}},
		{"JSON as application/octet-stream, as tritonclient's asyncio client sends", Valid, 0, func(_ *Generator, op Operation, req *Request) bool {
			if !op.OIP || op.Binary {
				return false
			}
			req.Header.Set("Content-Type", octetStream)
			return true
		}},
		{"missing required field", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				req := op.Body.Value.Required
				if len(req) == 0 {
					return false
				}
				delete(obj, req[g.v.pick(len(req))])
				return true
			})
		}},
		{"unknown field", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				names := []string{"extra", "Model", "model ", "__proto__", "datа"}
				obj[names[g.v.pick(len(names))]] = 1
				ap := op.Body.Value.AdditionalProperties
				return ap.Has != nil && !*ap.Has
			})
		}},
		{"wrong type", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				props := slices.Sorted(maps.Keys(op.Body.Value.Properties))
				name := props[g.v.pick(len(props))]
				schema := op.Body.Value.Properties[name]
				if schema.Value == nil || schema.Value.Type == nil || len(schema.Value.Type.Slice()) == 0 {
					return false // any value is right for it
				}
				obj[name] = g.v.wrongType(schema)
				return true
			})
		}},
		{"string too long", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				for _, name := range slices.Sorted(maps.Keys(op.Body.Value.Properties)) {
					s := op.Body.Value.Properties[name].Value
					if s != nil && s.MaxLength != nil && g.v.chance(0.6) {
						obj[name] = strings.Repeat("m", int(*s.MaxLength)+1+g.v.pick(100))
						return true
					}
				}
				return false
			})
		}},
		{"empty string", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				for _, name := range slices.Sorted(maps.Keys(op.Body.Value.Properties)) {
					s := op.Body.Value.Properties[name].Value
					if s != nil && s.MinLength > 0 && g.v.chance(0.6) {
						obj[name] = ""
						return true
					}
				}
				return false
			})
		}},
		{"no items", Invalid, http.StatusBadRequest, func(g *Generator, _ Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				_, ok := obj["items"]
				obj["items"] = []any{}
				return ok
			})
		}},
		{"more items than MAX_BATCH_ITEMS", Invalid, http.StatusRequestEntityTooLarge, func(g *Generator, _ Operation, req *Request) bool {
			return g.editBody(req, func(obj map[string]any) bool {
				_, ok := obj["items"]
				obj["items"] = make([]any, g.tgt.MaxBatchItems+1+g.v.pick(10))
				obj["model"] = "echo"
				return ok
			})
		}},
		{"body over MAX_REQUEST_BYTES", Invalid, http.StatusRequestEntityTooLarge, func(g *Generator, _ Operation, req *Request) bool {
			req.Body = g.padded(req, g.tgt.MaxRequestBytes+1+g.v.pick(4096))
			req.Chunked = g.v.chance(0.5)
			return true
		}},
		{"huge string within MAX_REQUEST_BYTES", Valid, 0, func(g *Generator, _ Operation, req *Request) bool {
			req.Body = g.padded(req, g.tgt.MaxRequestBytes-g.v.pick(1024))
			return true
		}},
		{"number beyond a double", Invalid, http.StatusBadRequest, func(g *Generator, _ Operation, req *Request) bool {
			nums := []string{"1e400", "-1e400", "1E309", "123456789012345678901234567890e300", "-0.1e310"}
			return g.editBody(req, func(obj map[string]any) bool {
				n := json.RawMessage(nums[g.v.pick(len(nums))])
				if _, ok := obj["items"]; ok {
					obj["items"] = []any{n}
				} else {
					obj["data"] = []any{n, n, n, n}
				}
				return true
			})
		}},
		{"nesting deeper than decoders go", Odd, 0, func(g *Generator, _ Operation, req *Request) bool {
			// Past encoding/json's limit of 10000, so the server refuses it (an echo of
			// a shallower one would be a right answer too).
			depth := 10001 + g.v.pick(20000)
			req.Body = []byte(`{"model":"echo","data":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
			return true
		}},
		{"duplicate keys", Odd, 0, func(_ *Generator, _ Operation, req *Request) bool {
			if !bytes.HasPrefix(req.Body, []byte("{")) || len(req.Body) < 3 {
				return false
			}
			req.Body = append([]byte(`{"model":"nope",`), req.Body[1:]...)
			return true
		}},
		{"invalid UTF-8 in a string", Odd, 0, func(_ *Generator, _ Operation, req *Request) bool {
			i := bytes.IndexByte(req.Body, '"')
			if i < 0 {
				return false
			}
			req.Body = append(append(append([]byte{}, req.Body[:i+1]...), 0xff, 0xfe), req.Body[i+1:]...)
			return true
		}},
	}
}

// editBody decodes the JSON object body, lets edit change it, and encodes it again.
func (g *Generator) editBody(req *Request, edit func(map[string]any) bool) bool {
	obj := g.bodyObject(req)
	if obj == nil || !edit(obj) {
		return false
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return false
	}
	req.Body = b
	return true
}

// padded returns the body with a string member that makes it size bytes long.
func (g *Generator) padded(req *Request, size int) []byte {
	obj := g.bodyObject(req)
	if obj == nil {
		obj = map[string]any{"model": ""}
	}
	// A body that names its model names echo, whose data may be anything; one that
	// takes its model from the path (explainPrediction) gets none.
	if _, ok := obj["model"]; ok {
		obj["model"] = "echo"
	}
	obj["data"] = ""
	if _, ok := obj["items"]; ok {
		delete(obj, "data")
		obj["items"] = []any{""}
	}
	b, _ := json.Marshal(obj)
	pad := strings.Repeat("p", max(size-len(b), 0))
	if _, ok := obj["items"]; ok {
		obj["items"] = []any{pad}
	} else {
		obj["data"] = pad
	}
	b, _ = json.Marshal(obj)
	return b
}

// setParam replaces one path parameter by what value returns for its maxLength,
// encoded by enc.
func (g *Generator) setParam(op Operation, req *Request, value func(limit int) (string, bool), enc func(string) string) bool {
	if len(op.PathParams) == 0 {
		return false
	}
	p := op.PathParams[g.v.pick(len(op.PathParams))]
	limit := 0
	if p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.MaxLength != nil {
		limit = int(*p.Schema.Value.MaxLength)
	}
	v, ok := value(limit)
	if !ok {
		return false
	}
	encoded := map[string]string{}
	for k, x := range req.params {
		encoded[k] = url.PathEscape(x)
	}
	encoded[p.Name] = enc(v)
	req.Path = fillPath(req.template, encoded, func(s string) string { return s })
	return true
}

// reencode sends the same path parameters with another encoding.
func (g *Generator) reencode(req *Request, enc func(string) string) bool {
	req.Path = fillPath(req.template, req.params, enc)
	return true
}
