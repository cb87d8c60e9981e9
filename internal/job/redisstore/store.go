package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// DefaultPrefix is the key prefix of job records when Options.Prefix is empty.
const DefaultPrefix = "inferd:job:"

// DefaultOwnerPrefix is the key prefix of the sets of an owner's unfinished jobs when
// Options.OwnerPrefix is empty. It is not under DefaultPrefix, which holds records only.
const DefaultOwnerPrefix = "inferd:jobs-of:"

// DefaultCallbacksPrefix is Options.CallbacksPrefix when it is empty.
const DefaultCallbacksPrefix = "inferd:callbacks:"

// maxAttempts bounds the optimistic retries of one Update. A job has a handful of
// writers at most (the submitting server, a worker or two, a cancel), so running out
// means something is badly wrong rather than busy.
const maxAttempts = 100

// Options configure a Store. The zero value of each field is a documented default.
type Options struct {
	// Prefix is prepended to a job id to make its key. "" means DefaultPrefix.
	Prefix string
	// TTL is how long a record lives after it becomes final. 0 means job.DefaultTTL.
	TTL time.Duration
	// MaxAge is how long a record that never becomes final lives, from its creation.
	// 0 means job.DefaultMaxAge.
	MaxAge time.Duration
	// MaxPerOwner caps the records of one owner (job.Record.Owner) that are not final;
	// Create refuses one more with job.ErrJobLimit. 0 means no cap.
	MaxPerOwner int
	// OwnerPrefix is prepended to an owner to make the key of the sorted set of its
	// unfinished jobs. "" means DefaultOwnerPrefix.
	OwnerPrefix string
	// MaxBytesPerOwner caps what the records of one owner cost (job.RecordCost of each
	// as stored: the input while unfinished, the result once final) until they expire;
	// Create refuses a record that would pass it with a *job.BytesLimitError, or
	// job.ErrJobTooLarge when it passes it alone. 0 means no budget. Whatever it is,
	// the writes of a record its owner's budget counts keep the count (the worker that
	// finishes a job has no budget of its own).
	MaxBytesPerOwner int64
	// BytesPrefix is prepended to an owner to make the keys of its byte budget. ""
	// means DefaultBytesPrefix.
	BytesPrefix string
	// IdempotencyTTL is how long an idempotency key is remembered after its first
	// use. 0 means job.DefaultIdempotencyTTL.
	IdempotencyTTL time.Duration
	// OncePrefix is prepended to the keys of idempotency keys. "" means
	// DefaultOncePrefix.
	OncePrefix string
	// CallbacksPrefix starts the key of each shard's queue of due callbacks (a sorted
	// set of job ids scored by when each is due, in unix ms). "" means
	// DefaultCallbacksPrefix.
	CallbacksPrefix string
	// Shards place records (and their owners' keys) in Redis Cluster slots; the zero
	// value is a single Redis's layout. With several shards, MaxPerOwner and
	// MaxBytesPerOwner are shared out among them, each holding an owner to its part
	// (rounded up), since a script sees one slot only.
	Shards Shards
}

// Store is a job.Store in Redis. It is safe for concurrent use by many goroutines and
// processes. It does not own the client: the caller closes it.
type Store struct {
	rc          redis.UniversalClient
	prefix      string
	ownerPrefix string
	ttl         time.Duration
	maxAge      time.Duration
	maxPerOwner int
	maxBytes    int64
	bytesPrefix string
	hooksPrefix string
	hookTurn    atomic.Uint32 // the shard a claim of callbacks starts at
	shards      Shards
	oncePrefix  string
	onceTTL     time.Duration
}

var (
	_ job.Store         = (*Store)(nil)
	_ job.OnceStore     = (*Store)(nil)
	_ job.CallbackQueue = (*Store)(nil)
)

// New returns a store that keeps records through rc.
func New(rc redis.UniversalClient, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.TTL <= 0 {
		opts.TTL = job.DefaultTTL
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = job.DefaultMaxAge
	}
	if opts.OwnerPrefix == "" {
		opts.OwnerPrefix = DefaultOwnerPrefix
	}
	if opts.BytesPrefix == "" {
		opts.BytesPrefix = DefaultBytesPrefix
	}
	if opts.OncePrefix == "" {
		opts.OncePrefix = DefaultOncePrefix
	}
	if opts.IdempotencyTTL <= 0 {
		opts.IdempotencyTTL = job.DefaultIdempotencyTTL
	}
	if opts.CallbacksPrefix == "" {
		opts.CallbacksPrefix = DefaultCallbacksPrefix
	}
	return &Store{
		rc: rc, prefix: opts.Prefix, ownerPrefix: opts.OwnerPrefix, bytesPrefix: opts.BytesPrefix, shards: opts.Shards,
		ttl: opts.TTL, maxAge: opts.MaxAge, oncePrefix: opts.OncePrefix, onceTTL: opts.IdempotencyTTL, hooksPrefix: opts.CallbacksPrefix,
		maxPerOwner: int(opts.Shards.share(int64(max(opts.MaxPerOwner, 0)))), maxBytes: opts.Shards.share(max(opts.MaxBytesPerOwner, 0)),
	}
}

// Create writes a new record; it fails if the id exists, with job.ErrJobLimit when the
// record's owner has MaxPerOwner unfinished records, or with a *job.BytesLimitError
// when its owner's records would cost more than MaxBytesPerOwner with it.
func (s *Store) Create(ctx context.Context, rec job.Record) error {
	b, err := job.EncodeJSON(rec)
	if err != nil {
		return fmt.Errorf("encoding job %s: %w", rec.ID, err)
	}
	if rec.HoldsSlot(s.maxPerOwner) || s.counts(rec) {
		return s.createCounted(ctx, rec, b)
	}
	// An unfinished record expires too, MaxAge after its creation: a job whose queueing
	// failed half-way, or whose task was lost with a Redis that had no replica, would
	// otherwise keep its record (and input) forever.
	args := redis.SetArgs{Mode: "NX", TTL: s.maxAge}
	if rec.Status.Final() {
		args.TTL = s.ttl
	}
	err = s.rc.SetArgs(ctx, s.key(rec.ID), b, args).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("job %s exists", rec.ID)
	case err != nil:
		return unavailable("creating", rec.ID, err)
	}
	return nil
}

// createCounted writes a record and adds it to its owner's sets in one script, which
// refuses it when the owner is at its cap or budget.
func (s *Store) createCounted(ctx context.Context, rec job.Record, b []byte) error {
	if err := s.Affordable(rec, b); err != nil {
		return err
	}
	keys, args := s.CreateArgs(rec, b)
	res, err := createCapped.Run(ctx, s.rc, keys, args...).Result()
	if err != nil {
		return unavailable("creating", rec.ID, err)
	}
	return s.Created(rec, b, res)
}

// Affordable refuses, without asking Redis, a record encoded as b whose cost alone
// passes its owner's budget: no retry could store it.
func (s *Store) Affordable(rec job.Record, b []byte) error {
	if !s.counts(rec) {
		return nil
	}
	if cost := job.RecordCost(len(b)); cost > s.maxBytes {
		return job.TooLarge(cost, s.maxBytes)
	}
	return nil
}

// Created is the outcome of CreateLua for the record rec encoded as b, from the
// script's result res: -1 when the record existed, 0 when its owner was at the cap,
// {-3, ...} when it was at its budget, nil for any other (the script went on and
// created it).
func (s *Store) Created(rec job.Record, b []byte, res any) error {
	switch res := res.(type) {
	case int64:
		switch res {
		case -1:
			return fmt.Errorf("job %s exists", rec.ID)
		case 0:
			return job.LimitReached(s.maxPerOwner)
		}
	case []any:
		return s.bytesRefusal(res, job.RecordCost(len(b)), time.Now())
	}
	return nil
}

// sweepEvery bounds how often an owner at its cap has its set checked id by id.
const sweepEvery = time.Second

// CreateArgs returns the keys and arguments of CreateLua for the record rec, encoded as
// b: a script that embeds CreateLua passes them first and numbers its own after them
// (KEYS from 6, ARGV from 11).
func (s *Store) CreateArgs(rec job.Record, b []byte) (keys []string, args []any) {
	limit := 0
	if rec.HoldsSlot(s.maxPerOwner) {
		limit = s.maxPerOwner
	}
	var budget int64
	if s.counts(rec) {
		budget = s.maxBytes
	}
	// As in Create: a final record lives TTL, any other MaxAge from its creation.
	life := s.maxAge
	if rec.Status.Final() {
		life = s.ttl
	}
	now := time.Now()
	owner := s.ownerKey(rec.ID, rec.Owner)
	return []string{s.key(rec.ID), owner, owner + ":swept", s.bytesKey(rec.ID, rec.Owner), s.sumsKey(rec.ID, rec.Owner)},
		[]any{b, life.Milliseconds(), limit, now.UnixMilli(), now.Add(life).UnixMilli(),
			rec.ID, s.prefix + s.shards.Tag(rec.ID), sweepEvery.Milliseconds(), budget, kind(rec)}
}

// CreateLua is the part of a script that creates a record as Create does, with the
// keys and arguments of CreateArgs: it returns -1 when the record exists, 0 when its
// owner is at the cap and {-3, held, open, earliest expiry} when it is at its budget,
// and goes on when it has created it. queue.Submitter embeds it to record and queue a
// job in one script.
//
// It creates the record KEYS[1] (value ARGV[1], expiring in ARGV[2] ms, at ARGV[5]) and,
// when the cap ARGV[3] is not 0, adds its id ARGV[6] to its owner's set KEYS[2] with
// score ARGV[5], unless the set holds ARGV[3] ids. The set holds the ids of the owner's
// unfinished records, scored by when each expires unfinished (MaxAge after its
// creation). When the budget ARGV[9] is not 0 it counts the record, of kind ARGV[10],
// in its owner's budget (KEYS[4] and KEYS[5], see budgetLua), unless that would pass
// ARGV[9].
//
// A record leaves the cap's set in the script that makes it final (compareAndSet). One
// that vanished otherwise leaves it here, when the owner is at its cap: ids scored
// before now (ARGV[4]) expired unfinished with their records (JOB_MAX_AGE); and, at
// most once per ARGV[8] ms (the marker KEYS[3]), every id left is checked for its
// record (prefix ARGV[7]), for records deleted or evicted. The set expires with the
// last record it may hold, so an idle owner leaves nothing behind.
//
// The sweeps read the records of ids they find in the owner's sets (ARGV[7] and the
// id), which no caller can list in KEYS beforehand; those records are in the same
// shard as the sets, so under the same hash tag and in the same slot, which Redis
// Cluster allows.
var CreateLua = budgetLua + `
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local limit = tonumber(ARGV[3])
if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
  if redis.call('ZCARD', KEYS[2]) >= limit and redis.call('SET', KEYS[3], '1', 'PX', ARGV[8], 'NX') then
    for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
      if redis.call('EXISTS', ARGV[7] .. id) == 0 then redis.call('ZREM', KEYS[2], id) end
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= limit then return 0 end
end
` + budgetCreateLua + `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if limit > 0 then
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
end
` + budgetCountLua

// createCapped is CreateLua on its own: 1 when it created.
var createCapped = redis.NewScript(CreateLua + "return 1\n")

// Get returns a record, or an error wrapping job.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (job.Record, error) {
	b, err := s.rc.Get(ctx, s.key(id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return job.Record{}, fmt.Errorf("%w: %s", job.ErrNotFound, id)
	case err != nil:
		return job.Record{}, unavailable("reading", id, err)
	}
	return decode(id, b)
}

// Update applies fn to the current record and writes the result, atomically with
// respect to every other writer. When another writer changes the record between the
// read and the write, the write is refused and Update starts again from a fresh read,
// so fn may run more than once and must do nothing but change the record. When fn
// returns an error nothing is written and that error is returned as is.
//
// An Update is two round trips: a GET, and a script that writes only if the record is
// still the one read (compared by SHA-1 digest, so a large input is not sent back).
func (s *Store) Update(ctx context.Context, id string, fn func(*job.Record) error) (job.Record, error) {
	return s.update(ctx, id, nil, fn)
}

// UpdateFrom is Update for a caller that holds the record as it was last written or
// read: when the stored record is still prev, the write is one round trip, without a
// read. Otherwise it goes on as Update, from a fresh read.
func (s *Store) UpdateFrom(ctx context.Context, prev job.Record, fn func(*job.Record) error) (job.Record, error) {
	// Encoded as Create and update write it, or the digests of a record holding <, >
	// or & would never match and every such write would cost a read.
	b, err := job.EncodeJSON(prev)
	if err != nil {
		return job.Record{}, fmt.Errorf("encoding job %s: %w", prev.ID, err)
	}
	return s.update(ctx, prev.ID, b, fn)
}

// update runs the optimistic loop of Update, starting from the encoded record held
// when held is not nil.
func (s *Store) update(ctx context.Context, id string, held []byte, fn func(*job.Record) error) (job.Record, error) {
	key := s.key(id)
	for attempt := 1; ; attempt++ {
		cur := held
		held = nil
		if cur == nil {
			b, err := s.rc.Get(ctx, key).Bytes()
			switch {
			case errors.Is(err, redis.Nil):
				return job.Record{}, fmt.Errorf("%w: %s", job.ErrNotFound, id)
			case err != nil:
				return job.Record{}, unavailable("updating", id, err)
			}
			cur = b
		}
		rec, err := decode(id, cur)
		if err != nil {
			return job.Record{}, err
		}
		wasFinal, was := rec.Status.Final(), kind(rec)
		if err := fn(&rec); err != nil {
			return job.Record{}, err
		}
		nb, err := job.EncodeJSON(rec)
		if err != nil {
			return job.Record{}, fmt.Errorf("encoding job %s: %w", id, err)
		}
		// The expiry counts from when the job finished, or from its creation (MaxAge)
		// while it has not: later writes keep it.
		ttl, channel, records, expires := "keep", "", "", ""
		if !wasFinal && rec.Status.Final() {
			ttl = strconv.FormatInt(s.ttl.Milliseconds(), 10)
			k := s.shards.Of(id)
			channel, records = s.channel(k), s.recordsChannel(k)
			expires = strconv.FormatInt(time.Now().Add(s.ttl).UnixMilli(), 10)
		}
		sum := sha1.Sum(cur)
		keys := []string{key}
		if rec.Owner != "" {
			// The job frees its slot when it becomes final, and its budget counts the
			// record as rewritten, in the same write. Whatever this store's cap and
			// budget, since the worker that finishes a job has none of its own.
			keys = append(keys, s.ownerKey(id, rec.Owner), s.bytesKey(id, rec.Owner), s.sumsKey(id, rec.Owner))
		}
		hook := []any{"", "", ""}
		if !wasFinal && rec.Due() {
			// Queued in the write that finishes the job: no crash in between can
			// lose the callback.
			keys = append(keys, s.keysKey(s.shards.Of(id)))
			hook = s.queueHookArgs(id, rec.Owner, time.Now())
		}
		n, err := compareAndSet.Run(ctx, s.rc, keys, hex.EncodeToString(sum[:]), nb, ttl, channel, id, records, maxPublished,
			was, kind(rec), expires, s.publish(), hook[0], hook[1], hook[2]).Int()
		switch {
		case err != nil:
			return job.Record{}, unavailable("updating", id, err)
		case n == 1:
			return rec, nil
		case n == -1:
			return job.Record{}, fmt.Errorf("%w: %s", job.ErrNotFound, id)
		case attempt == maxAttempts:
			return job.Record{}, fmt.Errorf("updating job %s: gave up after %d conflicting writes", id, attempt)
		}
		// Writers that collided once tend to collide again in lockstep; a little
		// jitter lets one of them through.
		if attempt > 2 {
			select {
			case <-ctx.Done():
				return job.Record{}, unavailable("updating", id, ctx.Err())
			case <-time.After(rand.N(time.Duration(attempt) * time.Millisecond)):
			}
		}
	}
}

// compareAndSet writes ARGV[2] to KEYS[1] if the stored value's SHA-1 is ARGV[1]. ARGV[3]
// is the expiry: "" none, "keep" the current one, or milliseconds. When the record has
// an owner, KEYS[2] is its cap's set, from which the id ARGV[5] leaves when the record
// becomes final (ARGV[10], its new expiry in unix ms, is not ""), and KEYS[3] and
// KEYS[4] its budget, which counts the record as rewritten (budgetUpdateLua); the
// owner's keys are there exactly when KEYS[3] is, since the queue of callbacks may
// follow KEYS[1] alone. When
// ARGV[4] is not "" it publishes, after writing (in the same script, so no subscriber
// hears of a final record before it can read it), the record itself on ARGV[6] if it
// is at most ARGV[7] bytes, then ARGV[5] (the job id) on ARGV[4]: the record first, so
// that a server subscribed to both answers its long polls from it, and the id for
// servers of earlier versions, which hear only ids; with ARGV[11], PUBLISH or, in Redis
// Cluster, SPUBLISH on channels under the record's hash tag. When ARGV[12] is not "",
// the record became final with a callback to deliver: the id joins its key's lane of
// due callbacks ARGV[13] (in the record's slot, so not among KEYS, whose length says
// which keys the owner's are), due at ARGV[12], and the key ARGV[14] the index of
// lanes, the last of KEYS, unless it is there due sooner. It returns 1 when it wrote, 0
// when the value was another, -1 when there was none.
var compareAndSet = redis.NewScript(budgetLua + `
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if redis.sha1hex(cur) ~= ARGV[1] then return 0 end
if ARGV[3] == 'keep' then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
elseif ARGV[3] ~= '' then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
if KEYS[3] and ARGV[10] ~= '' then redis.call('ZREM', KEYS[2], ARGV[5]) end
` + budgetUpdateLua + `
if ARGV[4] ~= '' then
  if string.len(ARGV[2]) <= tonumber(ARGV[7]) then redis.call(ARGV[11], ARGV[6], ARGV[2]) end
  redis.call(ARGV[11], ARGV[4], ARGV[5])
end
if ARGV[12] ~= '' then
  redis.call('ZADD', ARGV[13], ARGV[12], ARGV[5])
  redis.call('ZADD', KEYS[#KEYS], 'LT', ARGV[12], ARGV[14])
end
return 1
`)

func (s *Store) key(id string) string { return s.prefix + s.shards.Tag(id) + id }

// ownerKey is the key of the cap's set of owner in the shard of the job id.
func (s *Store) ownerKey(id, owner string) string { return s.ownerPrefix + s.shards.Tag(id) + owner }

// channel is where the ids of jobs of shard k whose records became final are
// published: one channel per prefix, so servers and workers that share records share
// it too. In Redis Cluster, where a classic channel's every message goes to every
// node, each shard has a sharded channel of its own, under its hash tag, served by the
// node of its slot alone.
func (s *Store) channel(k int) string { return s.prefix + s.channelTag(k) + finishedChannel }

// recordsChannel is where the final records themselves are published, beside
// channel.
func (s *Store) recordsChannel(k int) string { return s.prefix + s.channelTag(k) + finalChannel }

// channelTag is the shard's tag in its channels' names: in Redis Cluster only, so
// that several shards on one Redis share the channels earlier versions used.
func (s *Store) channelTag(k int) string {
	if !s.shards.Tagged {
		return ""
	}
	return s.shards.ShardTag(k)
}

// publish is the command that announces final records: SPUBLISH in Redis Cluster.
func (s *Store) publish() string {
	if s.shards.Tagged {
		return "SPUBLISH"
	}
	return "PUBLISH"
}

// finishedChannel and finalChannel end the names of the finished-jobs channels. A
// channel is not a key, so neither can collide with a job's record.
const (
	finishedChannel = "finished"
	finalChannel    = "final"
)

// maxPublished bounds the final records published whole: a long poll answers from the
// record it hears of rather than reading it again, which saves a round trip per job,
// but every server hears every record, so a large result (an echo of a 1 MB tensor) is
// published as its id only and read by the one server that waits for it.
const maxPublished = 64 << 10

// errCorrupt marks a record that is in Redis but cannot be read back.
var errCorrupt = errors.New("corrupt job record")

func decode(id string, b []byte) (job.Record, error) {
	var rec job.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return job.Record{}, fmt.Errorf("%w %s: %w", errCorrupt, id, err)
	}
	return rec, nil
}

// unavailable wraps a failure to talk to Redis with job.ErrQueueUnavailable, keeping the
// cause (a net error, a context error) visible to errors.Is as well.
func unavailable(op, id string, err error) error {
	return fmt.Errorf("%w: %s job %s: %w", job.ErrQueueUnavailable, op, id, err)
}
