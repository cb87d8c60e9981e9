package redistest_test

import (
	"context"
	"testing"

	"github.com/inferd/inferd/internal/redistest"
)

// TestCluster starts a cluster of three primaries with a replica each, writes keys
// that hash to different slots, and kills the primary of one: the cluster promotes its
// replica and serves the key again.
func TestCluster(t *testing.T) {
	t.Parallel()
	c := redistest.StartCluster(t, 3, 1)
	rc := c.Client()
	ctx := context.Background()
	keys := []string{"{a}x", "{b}x", "{c}x", "{d}x", "{e}x"}
	for _, k := range keys {
		if err := rc.Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	if got := c.KeysPerPrimary("{"); len(got) < 2 {
		t.Errorf("keys on %d primaries (%v), want them spread", len(got), got)
	}
	victim := c.PrimaryOf("{a}x")
	c.Failover(victim, 3)
	if p := c.PrimaryOf("{a}x"); p == victim {
		t.Fatalf("%s still serves {a}x after it was killed", p.Addr())
	}
}
