package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/repository"
)

// answer is a third runtime, defined here the way a new package would: every item
// gets the answer its model.yaml's artifact names.
type answer struct{}

func (answer) Name() string { return "answer" }

func (answer) Check(s *backend.Settings) error {
	if s.Artifact == "" {
		return backend.Errorf("artifact", "backend answer needs one")
	}
	return nil
}

func (answer) Open(_ context.Context, s backend.Settings) (backend.Model, error) {
	return answerModel{echo.Model{}, s.Artifact}, nil
}

// answerModel is echo's raw-JSON model with another Predict.
type answerModel struct {
	echo.Model
	value string
}

func (m answerModel) Predict(_ context.Context, batch []any) ([]any, error) {
	out := make([]any, len(batch))
	for i := range out {
		out[i] = m.value
	}
	return out, nil
}

// TestThirdBackend: a runtime the repository has never heard of serves once it is in
// the catalogue, and is listed when a config names an unknown one.
func TestThirdBackend(t *testing.T) {
	catalogue := backend.Catalogue{answer{}, echo.Backend{}}
	tests := []struct {
		name, yaml string
		want       string // the result, or the error after "<dir>/m/v1/model.yaml: "
		wantErr    bool
	}{
		{name: "serves", yaml: "backend: answer\nartifact: fortytwo\n", want: `"fortytwo"`},
		{name: "its own check", yaml: "backend: answer\n", want: "artifact: backend answer needs one", wantErr: true},
		{name: "the shared checks", yaml: "backend: answer\nartifact: ../x\n", want: `artifact: "../x" must be a file name in the version directory`, wantErr: true},
		{name: "listed", yaml: "backend: torch\n", want: `backend: unknown backend "torch" (backends: answer, echo)`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := repo(t, map[string]string{"m/v1/model.yaml": tt.yaml})
			spec, err := repository.New(repository.Options{Dir: dir, Backends: catalogue}).Model(context.Background(), "m")
			if err != nil {
				t.Fatal(err)
			}
			v := spec.Versions[0]
			if tt.wantErr {
				want := filepath.Join(dir, "m", "v1", "model.yaml") + ": " + tt.want
				if v.Err == nil || v.Err.Error() != want || !errors.Is(v.Err, repository.ErrInvalidConfig) {
					t.Fatalf("Err = %v\nwant  %s", v.Err, want)
				}
				return
			}
			if v.Err != nil {
				t.Fatal(v.Err)
			}
			p, err := v.Loader.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			out, err := p.Run(context.Background(), []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`2`)}, nil)
			if err != nil || len(out) != 2 || string(out[0]) != tt.want || string(out[1]) != tt.want {
				t.Fatalf("Run = %s, %v; want %s twice", out, err, tt.want)
			}
		})
	}
}
