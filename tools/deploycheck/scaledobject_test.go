package deploycheck

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// scaledObject is the part of a KEDA ScaledObject the checks read, once the document
// has passed the schema of KEDA's CustomResourceDefinition (scaledObjectSchema).
type scaledObject struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount *int32 `json:"minReplicaCount"`
		MaxReplicaCount *int32 `json:"maxReplicaCount"`
		CooldownPeriod  *int32 `json:"cooldownPeriod"`
		Triggers        []struct {
			Type     string            `json:"type"`
			Metadata map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// crdFile is KEDA's CustomResourceDefinition of ScaledObject, as KEDA publishes it.
const crdFile = "testdata/keda.sh_scaledobjects.yaml"

var (
	soSchemaOnce sync.Once
	soSchema     *jsonschema.Schema
	soSchemaErr  error
)

// scaledObjectSchema compiles the v1alpha1 schema of KEDA's CRD into a JSON Schema
// that refuses unknown fields, as the Kubernetes types' strict decoding does: the API
// server would prune them without a word, so a misspelt field would silently do
// nothing.
func scaledObjectSchema() (*jsonschema.Schema, error) {
	soSchemaOnce.Do(func() {
		b, err := os.ReadFile(crdFile)
		if err != nil {
			soSchemaErr = err
			return
		}
		// The CRD's own type would bring k8s.io/apiextensions-apiserver in; the
		// schema is a plain value within it.
		var crd struct {
			Spec struct {
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		// The file starts with a comment of ours, then the CRD's own document.
		for _, doc := range docSeparator.Split(string(b), -1) {
			if strings.Contains(doc, "kind: CustomResourceDefinition") {
				b = []byte(doc)
			}
		}
		if err := yaml.Unmarshal(b, &crd); err != nil {
			soSchemaErr = fmt.Errorf("%s: %w", crdFile, err)
			return
		}
		var raw any
		for _, v := range crd.Spec.Versions {
			if v.Name == "v1alpha1" && v.Schema.OpenAPIV3Schema != nil {
				raw = v.Schema.OpenAPIV3Schema
			}
		}
		if raw == nil {
			soSchemaErr = fmt.Errorf("%s has no v1alpha1 schema", crdFile)
			return
		}
		closeObjects(raw)
		c := jsonschema.NewCompiler()
		if err := c.AddResource("scaledobject.json", raw); err != nil {
			soSchemaErr = err
			return
		}
		soSchema, soSchemaErr = c.Compile("scaledobject.json")
	})
	return soSchema, soSchemaErr
}

// closeObjects sets additionalProperties: false on every object schema that lists its
// properties and neither allows others nor keeps unknown fields.
func closeObjects(s any) {
	switch s := s.(type) {
	case map[string]any:
		_, props := s["properties"]
		_, additional := s["additionalProperties"]
		preserve, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
		if props && !additional && !preserve {
			s["additionalProperties"] = false
		}
		for _, v := range s {
			closeObjects(v)
		}
	case []any:
		for _, v := range s {
			closeObjects(v)
		}
	}
}

// decodeScaledObject validates a ScaledObject against KEDA's schema, then decodes it.
func decodeScaledObject(doc []byte) (*scaledObject, error) {
	schema, err := scaledObjectSchema()
	if err != nil {
		return nil, fmt.Errorf("KEDA's schema: %w", err)
	}
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(j)))
	if err != nil {
		return nil, err
	}
	if err := schema.Validate(v); err != nil {
		return nil, err
	}
	var so scaledObject
	if err := json.Unmarshal(j, &so); err != nil {
		return nil, err
	}
	return &so, nil
}

// TestScaledObjectStrictDecoding shows KEDA's schema is applied strictly: a misspelt
// field, a wrong type and a missing trigger each fail it.
func TestScaledObjectStrictDecoding(t *testing.T) {
	const head = "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: w\n"
	for _, tt := range []struct{ name, doc string }{
		{"misspelt field", head + "spec:\n  scaleTargetRef: {name: w}\n  minReplicas: 2\n  triggers: [{type: cpu, metadata: {}}]\n"},
		{"wrong type", head + "spec:\n  scaleTargetRef: {name: w}\n  minReplicaCount: two\n  triggers: [{type: cpu, metadata: {}}]\n"},
		{"no triggers", head + "spec:\n  scaleTargetRef: {name: w}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decode([]byte(tt.doc)); err == nil {
				t.Errorf("decoded without an error:\n%s", tt.doc)
			}
		})
	}
	if _, err := decode([]byte(head + "spec:\n  scaleTargetRef: {name: w}\n  triggers: [{type: cpu, metadata: {value: \"50\"}}]\n")); err != nil {
		t.Errorf("a valid ScaledObject: %v", err)
	}
}
