package queue

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// taskKey and pendingKey are asynq v0.26.0's keys (its internal/base) of a task's hash
// and of a queue's list of pending task ids, which Submitter writes itself.
func taskKey(queue, id string) string { return "asynq:{" + queue + "}:t:" + id }
func pendingKey(queue string) string  { return "asynq:{" + queue + "}:pending" }

// taskMessage encodes a task as asynq v0.26.0's client does (its internal/proto
// TaskMessage, protobuf): the type, payload, id, queue, retry limit and timeout in
// seconds, with no deadline, uniqueness, group or retention, the options newTask
// gives. TestTaskMessageAsAsynq compares it with asynq's own encoding, byte for byte.
func (o TaskOptions) taskMessage(id string, payload []byte) []byte {
	return o.taskMessageOn(id, o.queueOf(id), payload)
}

// taskMessageOn is taskMessage for a task on queue.
func (o TaskOptions) taskMessageOn(id, queue string, payload []byte) []byte {
	b := make([]byte, 0, 64+len(payload)+len(id))
	b = protowire.AppendTag(b, 1, protowire.BytesType) // type
	b = protowire.AppendString(b, TaskType)
	b = protowire.AppendTag(b, 2, protowire.BytesType) // payload
	b = protowire.AppendBytes(b, payload)
	b = protowire.AppendTag(b, 3, protowire.BytesType) // id
	b = protowire.AppendString(b, id)
	b = protowire.AppendTag(b, 4, protowire.BytesType) // queue
	b = protowire.AppendString(b, queue)
	b = protowire.AppendTag(b, 5, protowire.VarintType) // retry (int32)
	b = protowire.AppendVarint(b, uint64(int64(int32(o.MaxRetry))))
	b = protowire.AppendTag(b, 8, protowire.VarintType) // timeout, seconds (int64)
	b = protowire.AppendVarint(b, uint64(int64(o.Timeout.Seconds())))
	return b
}
