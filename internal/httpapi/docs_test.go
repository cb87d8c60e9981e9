package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/apitest"
)

// contractDoc is the part of the served documents these tests read.
type contractDoc struct {
	Servers []struct {
		URL string `json:"url" yaml:"url"`
	} `json:"servers" yaml:"servers"`
}

func TestDocuments(t *testing.T) {
	tests := []struct {
		name, publicURL, wantServer, wantAssets string
	}{
		{"relative by default", "", "/", "/docs/"},
		{"PUBLIC_URL with a path prefix", "https://gw.example.com/inferd", "https://gw.example.com/inferd", "/inferd/docs/"},
		{"PUBLIC_URL at a root", "http://api.example.com:8443", "http://api.example.com:8443", "/docs/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(s *setup) { s.opts.PublicURL = tt.publicURL })

			yamlResp := h.c.Get("/openapi.yaml", "")
			jsonResp := h.c.Get("/openapi.json", "")
			for _, r := range []*apitest.Response{yamlResp, jsonResp} {
				if r.Status != http.StatusOK {
					t.Fatalf("status %d: %.300s", r.Status, r.Body)
				}
			}
			if tt.publicURL == "" && !bytes.Equal(yamlResp.Body, inferd.OpenAPI) {
				t.Error("/openapi.yaml is not openapi.yaml byte for byte")
			}
			var fromYAML, fromJSON contractDoc
			if err := yaml.Unmarshal(yamlResp.Body, &fromYAML); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(jsonResp.Body, &fromJSON); err != nil {
				t.Fatal(err)
			}
			for name, d := range map[string]contractDoc{"/openapi.yaml": fromYAML, "/openapi.json": fromJSON} {
				if len(d.Servers) != 1 || d.Servers[0].URL != tt.wantServer {
					t.Errorf("%s servers = %+v, want one: %s", name, d.Servers, tt.wantServer)
				}
			}
			// The JSON keeps the example's big integer digit for digit.
			if !strings.Contains(string(jsonResp.Body), `"n":12345678901234567890`) {
				t.Error("/openapi.json lost the digits of 12345678901234567890")
			}
			if got := exampleN(t, jsonResp.Body); got != "12345678901234567890" {
				t.Errorf("PredictRequest example n = %s, want 12345678901234567890", got)
			}

			page := h.c.Get("/docs", "")
			if page.Status != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("/docs: status %d, Content-Type %q", page.Status, page.Header.Get("Content-Type"))
			}
			for _, want := range []string{`href="` + tt.wantAssets + `swagger-ui.css"`, `"swaggerJsonUrl":"` + strings.TrimSuffix(tt.wantAssets, "docs/") + `openapi.json"`, "inferdDocs.responseInterceptor"} {
				if !strings.Contains(string(page.Body), want) {
					t.Errorf("/docs page lacks %s", want)
				}
			}
		})
	}
}

// exampleN digs PredictRequest's example data.n out of the JSON document as written.
func exampleN(t *testing.T, doc []byte) string {
	t.Helper()
	var d struct {
		Components struct {
			Schemas struct {
				PredictRequest struct {
					Example struct {
						Data struct {
							N json.Number `json:"n"`
						} `json:"data"`
					} `json:"example"`
				} `json:"PredictRequest"`
			} `json:"schemas"`
		} `json:"components"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d.Components.Schemas.PredictRequest.Example.Data.N.String()
}

// TestDocumentsRefuseBodies: the documents take no body, as the contract's other
// bodyless operations, and say so with the declared 413.
func TestDocumentsRefuseBodies(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/openapi.yaml", "/openapi.json", "/docs", "/docs/swagger-ui.css"} {
		t.Run(path, func(t *testing.T) {
			resp := h.c.Do(h.c.NewRequest(http.MethodGet, path, "", `{"x":1}`))
			if resp.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d: %.300s", resp.Status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != "payload_too_large" || !strings.Contains(p.Detail, "takes no request body") {
				t.Errorf("problem %+v", p)
			}
		})
	}
}

// TestDocsOperationsHaveOneTag: Swagger UI lists an operation under each of its tags,
// so a second tag would list it twice.
func TestDocsOperationsHaveOneTag(t *testing.T) {
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			t.Run(method+" "+path, func(t *testing.T) {
				if len(op.Tags) != 1 {
					t.Errorf("tags %v, want exactly one", op.Tags)
				}
			})
		}
	}
}

// TestDocsUnknownAsset: a path under /docs/ that is no asset is a 404 problem, as any
// unknown path is, not the asset server's plain text.
func TestDocsUnknownAsset(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/docs/index.html", "/docs/nope.js", "/docs/a/b"} {
		t.Run(path, func(t *testing.T) {
			resp := h.c.Get(path, "")
			if resp.Status != http.StatusNotFound {
				t.Fatalf("status %d: %.300s", resp.Status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != "not_found" || p.RequestID == "" {
				t.Errorf("problem %+v", p)
			}
		})
	}
}
