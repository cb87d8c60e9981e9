package daemon

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenStore: MODELS_DIR's scheme picks the store; a scheme this build does not
// read is refused naming the ones it does, without repeating what follows the scheme
// (a secret pasted there by mistake); a polled directory must exist.
func TestOpenStore(t *testing.T) {
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:1") // no credentials needed, none looked for
	tests := []struct {
		models, wantStore, wantErr string
	}{
		{models: "s3://models/prod", wantStore: "s3://models/prod"},
		{models: "S3://models/prod", wantStore: "s3://models/prod"}, // schemes are case-blind
		{models: "gs://bucket/prod", wantStore: "gs://bucket/prod"},
		{models: "az://bucket/hunter2", wantErr: "a repository at az://... is not one this build reads; it reads a directory or gs://, s3://"},
		{models: "s3://Bad_Bucket/prod", wantErr: "lowercase letters"},
		{models: t.TempDir(), wantStore: ""},
		{models: filepath.Join(t.TempDir(), "missing"), wantErr: "MODELS_DIR, polled (REPOSITORY_POLL_INTERVAL)"},
	}
	for _, tt := range tests {
		t.Run(tt.models, func(t *testing.T) {
			s, err := openStore(context.Background(), tt.models)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("openStore = %v, want an error saying %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("the error repeats the URL: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.wantStore; want != "" && s.String() != want {
				t.Errorf("store %q, want %q", s.String(), want)
			}
		})
	}
}
