package redisstore

import "testing"

// TestBeside: a queue beside a shard's is in the shard's slot when keys are tagged,
// and plainly named on one untagged Redis.
func TestBeside(t *testing.T) {
	tests := []struct {
		name   string
		shards Shards
	}{
		{"one Redis", Shards{Queue: "inferd"}},
		{"cluster, one shard", Shards{Queue: "inferd", Tagged: true}},
		{"six shards", Shards{Queue: "inferd", N: 6, Tagged: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k := range tt.shards.Count() {
				for _, suffix := range []string{"high", "low"} {
					name := tt.shards.Beside(k, suffix)
					if !tt.shards.Tagged && tt.shards.Count() == 1 {
						if name != "inferd-"+suffix {
							t.Errorf("%s: %q", suffix, name)
						}
						continue
					}
					if got, want := crc16(name)%slots, crc16(tt.shards.Name(k))%slots; got != want {
						t.Errorf("shard %d %s: %q in slot %d, the shard's %q in %d", k, suffix, name, got, tt.shards.Name(k), want)
					}
				}
			}
		})
	}
}
