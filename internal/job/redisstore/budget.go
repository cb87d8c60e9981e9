package redisstore

import (
	"fmt"
	"strconv"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// DefaultBytesPrefix is the key prefix of an owner's byte budget when
// Options.BytesPrefix is empty: the sorted set of its records is prefix + owner, the
// hash of their sums prefix + owner + ":sum".
const DefaultBytesPrefix = "inferd:job-bytes-of:"

// The byte budget of an owner lives in two keys, changed in the scripts that write its
// records, so that every server and worker counts it alike and a submission stays one
// round trip:
//
//   - a sorted set with one member per record: "o" (unfinished) or "f" (final), the
//     record's cost (job.RecordCost of its stored length), ":" and its id, scored by
//     when the record expires (unix ms). Every write of the record replaces its member,
//     so the cost is always that of the stored record: the input while the job waits or
//     runs, the result once it has finished.
//   - a hash of the sums: held (every member's cost), open (the "o" members'), and the
//     state of the check for deleted records (checked, cursor).
//
// A record that expires leaves the set in the next submission of its owner (members
// scored before now). One deleted by hand (or evicted, under a maxmemory-policy other
// than noeviction) is found by a check that runs only for an owner over its budget, at
// most once per sweepEvery, and looks at 100 members from where the last one stopped.
// Both keys expire with the last record they count.
//
// budgetLua defines the functions CreateLua and compareAndSet share.
var budgetLua = `
local function record_cost(n)
  local size = n + 16
  local p = 16
  while p * 2 < size do p = p * 2 end
  local g = math.max(p / 4, 16)
  return math.ceil(size / g) * g + ` + strconv.Itoa(job.RecordOverhead) + `
end
local function budget_member(kind, cost, id)
  return kind .. string.format('%d', cost) .. ':' .. id
end
local function budget_forget(set, sums, m)
  local kind, cost = string.match(m, '^(%a)(%d+):')
  cost = tonumber(cost)
  redis.call('ZREM', set, m)
  redis.call('HINCRBY', sums, 'held', -cost)
  if kind == 'o' then redis.call('HINCRBY', sums, 'open', -cost) end
end
local function budget_extend(set, sums, ms)
  ms = tonumber(ms)
  if ms <= 0 then return end
  for _, k in ipairs({set, sums}) do
    if redis.call('PTTL', k) < ms then redis.call('PEXPIRE', k, ms) end
  end
end
local function budget_sum(sums, field)
  return tonumber(redis.call('HGET', sums, field) or '0')
end
`

// budgetCheckBatch is how many members of an owner's set one check for deleted records
// looks at.
const budgetCheckBatch = 100

// budgetExpiredBatch bounds how many expired members one submission removes, so that a
// key whose many records expired together costs no single script more than about a
// millisecond; the next submissions remove the rest.
const budgetExpiredBatch = 1000

// budgetCreateLua is the part of CreateLua that refuses a record over its owner's
// budget ARGV[9] (0: none) and counts one it creates, with CreateLua's keys and
// arguments. Its refusal is {-3, held, open, earliest expiry in unix ms}.
var budgetCreateLua = fmt.Sprintf(`
local budget = tonumber(ARGV[9])
local cost = 0
if budget > 0 then
  cost = record_cost(string.len(ARGV[1]))
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[4], 'LIMIT', 0, %[1]d)) do
    budget_forget(KEYS[4], KEYS[5], m)
  end
  local held = budget_sum(KEYS[5], 'held')
  if held + cost > budget and budget_sum(KEYS[5], 'checked') <= tonumber(ARGV[4]) - tonumber(ARGV[8]) then
    local from = budget_sum(KEYS[5], 'cursor')
    local members = redis.call('ZRANGE', KEYS[4], from, from + %[2]d - 1)
    local kept = 0
    for _, m in ipairs(members) do
      if redis.call('EXISTS', ARGV[7] .. string.match(m, ':(.*)$')) == 0 then
        budget_forget(KEYS[4], KEYS[5], m)
      else
        kept = kept + 1
      end
    end
    if #members < %[2]d then from = 0 else from = from + kept end
    redis.call('HSET', KEYS[5], 'checked', ARGV[4], 'cursor', from)
    held = budget_sum(KEYS[5], 'held')
  end
  if held + cost > budget then
    local first = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
    return {-3, held, budget_sum(KEYS[5], 'open'), first[2] or ARGV[4]}
  end
end
`, budgetExpiredBatch, budgetCheckBatch)

// budgetCountLua is the part of CreateLua that counts the record it created.
const budgetCountLua = `
if budget > 0 then
  redis.call('ZADD', KEYS[4], ARGV[5], budget_member(ARGV[10], cost, ARGV[6]))
  redis.call('HINCRBY', KEYS[5], 'held', cost)
  if ARGV[10] == 'o' then redis.call('HINCRBY', KEYS[5], 'open', cost) end
  budget_extend(KEYS[4], KEYS[5], ARGV[2])
end
`

// budgetUpdateLua is the part of compareAndSet that recounts a record it rewrote, if
// its owner's set counts it (as the record cur was, of kind ARGV[8]): its member
// becomes that of the new record ARGV[2], of kind ARGV[9], scored by its new expiry
// ARGV[10] when it became final ("" keeps the score).
const budgetUpdateLua = `
if KEYS[3] then
  local old = budget_member(ARGV[8], record_cost(string.len(cur)), ARGV[5])
  local score = redis.call('ZSCORE', KEYS[3], old)
  if score then
    local cost = record_cost(string.len(ARGV[2]))
    budget_forget(KEYS[3], KEYS[4], old)
    if ARGV[10] ~= '' then score = ARGV[10] end
    redis.call('ZADD', KEYS[3], score, budget_member(ARGV[9], cost, ARGV[5]))
    redis.call('HINCRBY', KEYS[4], 'held', cost)
    if ARGV[9] == 'o' then redis.call('HINCRBY', KEYS[4], 'open', cost) end
    budget_extend(KEYS[3], KEYS[4], redis.call('PTTL', KEYS[1]))
  end
end
`

// kind is a record's letter in its owner's set.
func kind(rec job.Record) string {
	if rec.Status.Final() {
		return "f"
	}
	return "o"
}

func (s *Store) bytesKey(id, owner string) string { return s.bytesPrefix + s.shards.Tag(id) + owner }

func (s *Store) sumsKey(id, owner string) string {
	return s.bytesPrefix + s.shards.Tag(id) + owner + ":sum"
}

// counts reports whether rec is counted against its owner's budget.
func (s *Store) counts(rec job.Record) bool { return s.maxBytes > 0 && rec.Owner != "" }

// bytesRefusal is the *job.BytesLimitError of CreateLua's refusal {-3, held, open,
// earliest}, for a record costing cost.
func (s *Store) bytesRefusal(res []any, cost int64, now time.Time) error {
	if len(res) != 4 {
		return fmt.Errorf("the job store's script answered %v", res)
	}
	held, _ := res[1].(int64)
	open, _ := res[2].(int64)
	var earliest int64
	switch v := res[3].(type) {
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		earliest = int64(f)
	case int64:
		earliest = v
	}
	return job.BytesLimitReached(held, open, cost, s.maxBytes, time.UnixMilli(earliest), now, s.ttl)
}
