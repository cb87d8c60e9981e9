package page

import (
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/swaggest/swgui"
	swgui5 "github.com/swaggest/swgui/v5emb"
	"go.yaml.in/yaml/v3"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/yamljson"
)

// docsPage is the script the Swagger UI page runs before Swagger UI itself.
//
//go:embed docs.js
var docsPage string

// documents returns the contract as served: as written, except that with a public URL
// its `servers` names that URL, since a relative "/" would point a client at the
// proxy's root instead of the path the server is published under.
func documents(publicURL string) (yamlDoc, jsonDoc []byte, err error) {
	yamlDoc = inferd.OpenAPI
	if publicURL != "" {
		if yamlDoc, err = withServer(yamlDoc, publicURL); err != nil {
			return nil, nil, err
		}
	}
	// Not encoding/json over a parsed document: that goes through float64 and would
	// publish 12345678901234567890 as 12345678901234567000.
	if jsonDoc, err = yamljson.Convert(yamlDoc); err != nil {
		return nil, nil, fmt.Errorf("rendering the contract as JSON: %w", err)
	}
	return yamlDoc, jsonDoc, nil
}

// withServer replaces the document's `servers` with publicURL alone. It edits the YAML
// tree, so comments, key order and number literals elsewhere stay as written.
func withServer(doc []byte, publicURL string) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("parsing openapi.yaml: %w", err)
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("openapi.yaml is not a mapping")
	}
	var servers yaml.Node
	type server struct {
		URL         string `yaml:"url"`
		Description string `yaml:"description"`
	}
	if err := servers.Encode([]server{{publicURL, "This server, as published (PUBLIC_URL)."}}); err != nil {
		return nil, err
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "servers" {
			m.Content[i+1] = &servers
			var b strings.Builder
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			if err := enc.Encode(&root); err != nil {
				return nil, err
			}
			return []byte(b.String()), nil
		}
	}
	return nil, fmt.Errorf("openapi.yaml has no servers")
}

// Docs serves /openapi.yaml, /openapi.json and Swagger UI at /docs (its assets under
// /docs/), advertising publicURL (PUBLIC_URL) as the server when it is set. They take
// no body, like the contract's other bodyless operations.
func (p Pages) Docs(r chi.Router, publicURL string) error {
	yamlDoc, jsonDoc, err := documents(publicURL)
	if err != nil {
		return err
	}
	// Behind a proxy the page is reached under PUBLIC_URL's path, so its asset and
	// document links carry that prefix; the server itself still routes /docs/.
	prefix := ""
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil {
			return fmt.Errorf("PUBLIC_URL: %w", err)
		}
		prefix = strings.TrimRight(u.Path, "/")
	}
	ui := swgui5.NewHandlerWithConfig(swgui.Config{
		Title:            "inferd API",
		SwaggerJSON:      prefix + "/openapi.json",
		BasePath:         prefix + "/docs/",
		InternalBasePath: "/docs/",
		ShowTopBar:       false,
		AppendHead:       template.HTML("<script>\n" + docsPage + "</script>\n"), //nolint:gosec // our own embedded script
		// No server URL is set here: Swagger UI resolves the contract's `servers`
		// against the document's own URL, so "Try it out" calls the origin the page
		// came from (or PUBLIC_URL when that is set).
		SettingsUI: map[string]string{
			// docs.js: keeps numbers beyond float64 exact in the loaded contract.
			"responseInterceptor": "inferdDocs.responseInterceptor",
			// swgui's default hook pokes React internals to pick a Swagger 2 scheme;
			// an OpenAPI 3 document has none.
			"onComplete": "function () {}",
			// The ids are the names generated clients give the operations.
			"displayOperationId": "true",
		},
	})

	r.Group(func(r chi.Router) {
		r.Use(p.noBody)
		r.Get("/openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write(yamlDoc)
		})
		r.Get("/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(jsonDoc)
		})
		r.Get("/docs", ui.ServeHTTP)
		r.Get("/docs/*", p.problemOn404(ui))
	})
	return nil
}

// problemOn404 answers a path under /docs/ that the asset server does not know as every
// unknown path is answered, with a problem, not the asset server's plain text.
func (p Pages) problemOn404(assets http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &notFoundCatcher{ResponseWriter: w}
		assets.ServeHTTP(c, r)
		if c.caught {
			for _, h := range []string{"Content-Type", "Content-Length", "X-Content-Type-Options"} {
				w.Header().Del(h)
			}
			p.notFound(w, r)
		}
	}
}

// notFoundCatcher swallows a 404 and its body so that problemOn404 can write its own.
type notFoundCatcher struct {
	http.ResponseWriter
	caught bool
}

func (c *notFoundCatcher) WriteHeader(code int) {
	if code == http.StatusNotFound {
		c.caught = true
		return
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *notFoundCatcher) Write(b []byte) (int, error) {
	if c.caught {
		return len(b), nil
	}
	return c.ResponseWriter.Write(b)
}
