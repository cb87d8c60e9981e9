package client

import (
	"encoding/json"
	"testing"
)

func TestEncodeKeepsValues(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"raw HTML characters", json.RawMessage(`{"t": "<&>"}`), `{"t":"<&>"}`},
		{"raw big integer", json.RawMessage(`12345678901234567890`), `12345678901234567890`},
		{"struct with HTML characters", struct {
			T string `json:"t"`
		}{"a<b"}, `{"t":"a<b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encode("input", tt.in)
			if err != nil || string(got) != tt.want {
				t.Errorf("encode = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
