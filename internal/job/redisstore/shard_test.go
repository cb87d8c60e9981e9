package redisstore_test

import (
	"fmt"
	"testing"

	"github.com/inferd/inferd/internal/job/redisstore"
)

func TestShards(t *testing.T) {
	tests := []struct {
		name   string
		shards redisstore.Shards
		names  []string
		tag    string // of shard 0
	}{
		{"zero value: a single Redis's layout", redisstore.Shards{Queue: "inferd"}, []string{"inferd"}, ""},
		{"one shard in a cluster", redisstore.Shards{Queue: "inferd", Tagged: true}, []string{"inferd"}, "{inferd}:"},
		// Each in its quarter of the slots: inferd-0.2 in slot 1046 (inferd-0 is in
		// 4878), inferd-1.4 in 5088, inferd-2.2 in 10870, inferd-3.4 in 15744.
		{"four shards", redisstore.Shards{Queue: "inferd", N: 4}, []string{"inferd-0.2", "inferd-1.4", "inferd-2.2", "inferd-3.4"}, "{inferd-0.2}:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.shards.Names(); fmt.Sprint(got) != fmt.Sprint(tt.names) {
				t.Errorf("Names() = %v, want %v", got, tt.names)
			}
			if got := tt.shards.ShardTag(0); got != tt.tag {
				t.Errorf("ShardTag(0) = %q, want %q", got, tt.tag)
			}
			// Ids spread over every shard, each always to the same one.
			seen := map[int]int{}
			for i := range 1000 {
				id := fmt.Sprintf("job-%d", i)
				k := tt.shards.Of(id)
				if k != tt.shards.Of(id) || k < 0 || k >= tt.shards.Count() {
					t.Fatalf("Of(%q) = %d, not a stable shard of %d", id, k, tt.shards.Count())
				}
				seen[k]++
			}
			for k := range tt.shards.Count() {
				if seen[k] < 1000/tt.shards.Count()/2 {
					t.Errorf("shard %d has %d of 1000 ids: %v", k, seen[k], seen)
				}
			}
		})
	}
}
