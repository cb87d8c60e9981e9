package pipeline

import (
	"context"
	"testing"
)

func TestItemField(t *testing.T) {
	bg := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		i, n int
		want string
	}{
		{"unmarked single", bg, 0, 1, "data"},
		{"unmarked batch", bg, 2, 3, "items[2]"},
		{"batch of one", WithBatch(bg, true), 0, 1, "items[0]"},
		{"batch", WithBatch(bg, true), 4, 5, "items[4]"},
		{"single", WithBatch(bg, false), 0, 1, "data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ItemField(tt.ctx, tt.i, tt.n); got != tt.want {
				t.Errorf("ItemField = %q, want %q", got, tt.want)
			}
		})
	}
}
