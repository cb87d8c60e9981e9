package redisstore

import (
	"testing"

	"github.com/inferd/inferd/internal/job"
)

// TestPublishedID reads the id at the head of a record as EncodeJSON writes it, and
// nothing else: any other layout is decoded whole.
func TestPublishedID(t *testing.T) {
	encoded, err := job.EncodeJSON(job.Record{ID: "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", Status: job.StatusSucceeded})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		payload string
		id      string
		ok      bool
	}{
		{string(encoded), "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", true},
		{`{"status":"succeeded","id":"a"}`, "", false},
		{` {"id":"a"}`, "", false},
		{`{"id":"a\"b","status":"failed"}`, "", false},
		{`{"id":"abc`, "", false},
		{`{"id":"","status":"failed"}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.payload, func(t *testing.T) {
			id, ok := publishedID(tt.payload)
			if id != tt.id || ok != tt.ok {
				t.Errorf("publishedID = %q, %v; want %q, %v", id, ok, tt.id, tt.ok)
			}
		})
	}
}
