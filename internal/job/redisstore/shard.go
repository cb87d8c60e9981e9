package redisstore

import (
	"hash/fnv"
	"strconv"
	"sync"
)

// Shards place each job's keys in one of several Redis Cluster slots. A shard is an
// asynq queue, whose keys asynq names with the queue between braces ({name}), the hash
// tag that decides their slot; a job's record and its owner's cap and budget keys in
// that shard carry the same tag, so every script that writes a job (its record with
// its owner's sets, or with its task) touches one slot only, as Redis Cluster
// requires. A job's shard follows from its id alone, so any server or worker finds its
// record.
//
// The zero value is one shard and no tag: a single Redis's layout, as it has always
// been.
type Shards struct {
	// Queue names the asynq queue of the only shard, and starts the name of each shard
	// when there are several.
	Queue string
	// N is how many shards there are; 0 means 1.
	N int
	// Tagged puts the shard's hash tag in every key even with one shard, as Redis
	// Cluster needs. Several shards are always tagged.
	Tagged bool
}

// Count is how many shards there are.
func (s Shards) Count() int { return max(s.N, 1) }

// Of is the shard of the job id.
func (s Shards) Of(id string) int {
	if s.Count() == 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(s.Count()))
}

// Name is the asynq queue of shard k: Queue alone when there is one shard, else Queue,
// "-" and k, and when needed "." and the first number that puts its hash tag's slot in
// the kth of Count equal parts of Redis Cluster's 16384 slots. A cluster made with
// redis-cli --cluster create (or a chart) gives each primary one run of slots, so with
// a multiple of the primaries as Count every primary serves as many shards: "inferd-0"
// to "inferd-5" alone put four of six on one primary of three.
func (s Shards) Name(k int) string {
	if s.Count() == 1 {
		return s.Queue
	}
	return s.names()[k]
}

// shardNames caches the names of each Queue and Count.
var shardNames sync.Map // shardKey -> []string

type shardKey struct {
	queue string
	n     int
}

func (s Shards) names() []string {
	key := shardKey{s.Queue, s.Count()}
	if v, ok := shardNames.Load(key); ok {
		return v.([]string)
	}
	n := s.Count()
	out := make([]string, n)
	for k := range out {
		base := s.Queue + "-" + strconv.Itoa(k)
		lo, hi := k*slots/n, (k+1)*slots/n
		name := base
		for j := 1; ; j++ {
			if slot := int(crc16(name) % slots); slot >= lo && slot < hi {
				break
			}
			name = base + "." + strconv.Itoa(j)
		}
		out[k] = name
	}
	shardNames.Store(key, out)
	return out
}

// slots is how many hash slots Redis Cluster has.
const slots = 16384

// crc16 is Redis Cluster's key hash (CRC-16/XMODEM) of a hash tag's content.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// Names are the asynq queues of every shard.
func (s Shards) Names() []string {
	out := make([]string, s.Count())
	for k := range out {
		out[k] = s.Name(k)
	}
	return out
}

// Tag is what goes between a key's prefix and the rest of it for the job id: its
// shard's hash tag and a colon, or "" when keys are not tagged.
func (s Shards) Tag(id string) string { return s.ShardTag(s.Of(id)) }

// ShardTag is Tag for shard k.
func (s Shards) ShardTag(k int) string {
	if !s.Tagged && s.Count() == 1 {
		return ""
	}
	return "{" + s.Name(k) + "}:"
}

// share is a shard's part of a per-owner limit: each shard holds an owner to it on its
// own, since no script can count the owner's jobs in other slots.
func (s Shards) share(limit int64) int64 {
	n := int64(s.Count())
	if limit <= 0 || n == 1 {
		return limit
	}
	return (limit + n - 1) / n
}

// Beside is the name of a queue that stands beside shard k's, for suffix: its
// name, "-" and suffix, and when keys are tagged "." and the first number that puts
// it in the slot of shard k's tag, so that one script may write a job's record and a
// task on that queue (asynq tags a queue's keys with its whole name). Queues of the
// job priorities other than normal are named so.
func (s Shards) Beside(k int, suffix string) string {
	base := s.Name(k) + "-" + suffix
	if !s.Tagged && s.Count() == 1 {
		return base
	}
	key := besideKey{s.Name(k), suffix}
	if v, ok := besideNames.Load(key); ok {
		return v.(string)
	}
	want := crc16(s.Name(k)) % slots
	name := base
	for j := 1; crc16(name)%slots != want; j++ {
		name = base + "." + strconv.Itoa(j)
	}
	besideNames.Store(key, name)
	return name
}

// besideNames caches Beside's names, whose search takes thousands of hashes.
var besideNames sync.Map // besideKey -> string

type besideKey struct{ name, suffix string }
