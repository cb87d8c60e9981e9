package redisstore

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/redistest"
)

// TestRecordCostMatchesLua: the scripts charge a record what job.RecordCost says, at
// every size class boundary up to 64 MiB and around it, so the two stores agree.
func TestRecordCostMatchesLua(t *testing.T) {
	rc := redistest.Start(t).Client()
	costs := redis.NewScript(budgetLua + `
local out = {}
for i, n in ipairs(ARGV) do out[i] = record_cost(tonumber(n)) end
return out
`)
	var sizes []any
	var want []int64
	for p := 16; p <= 64<<20; p *= 2 {
		for _, q := range []int{p, p + p/4, p + p/2, p + 3*p/4} {
			for _, n := range []int{q - 17, q - 16, q - 15, q} {
				if n >= 0 {
					sizes = append(sizes, n)
					want = append(want, job.RecordCost(n))
				}
			}
		}
	}
	got, err := costs.Run(context.Background(), rc, nil, sizes...).Int64Slice()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("a record of %d bytes: the scripts charge %d, RecordCost %d", sizes[i], got[i], want[i])
		}
	}
}
