package queue

import (
	"fmt"
	"slices"

	"github.com/hibiken/asynq"

	"github.com/inferd/inferd/internal/job"
)

// Control is the job.QueueControl of asynq's queues. asynq's own pause fails on a
// paused queue, and its resume on a running one, which the dashboard answered 500;
// and it pauses a queue that does not exist without a word.
type Control struct {
	insp *asynq.Inspector
}

var _ job.QueueControl = (*Control)(nil)

// NewControl returns the control of the queues insp sees.
func NewControl(insp *asynq.Inspector) *Control { return &Control{insp: insp} }

// PauseQueue stops workers taking jobs from the queue.
func (c *Control) PauseQueue(name string) error { return c.set(name, true) }

// ResumeQueue lets workers take jobs from the queue again.
func (c *Control) ResumeQueue(name string) error { return c.set(name, false) }

func (c *Control) set(name string, pause bool) error {
	queues, err := c.insp.Queues()
	if err != nil {
		return fmt.Errorf("%w: listing the queues: %v", job.ErrQueueUnavailable, err)
	}
	if !slices.Contains(queues, name) {
		return fmt.Errorf("%w: no queue is named %q (the queues are %v)", job.ErrUnknownQueue, name, queues)
	}
	if paused, err := c.paused(name); err != nil || paused == pause {
		return err
	}
	if pause {
		err = c.insp.PauseQueue(name)
	} else {
		err = c.insp.UnpauseQueue(name)
	}
	if err != nil {
		// Another pause or resume got there between the look and the write: the queue
		// is in the state asked for all the same.
		if paused, perr := c.paused(name); perr == nil && paused == pause {
			return nil
		}
		return fmt.Errorf("%w: %v", job.ErrQueueUnavailable, err)
	}
	return nil
}

func (c *Control) paused(name string) (bool, error) {
	info, err := c.insp.GetQueueInfo(name)
	if err != nil {
		return false, fmt.Errorf("%w: reading queue %q: %v", job.ErrQueueUnavailable, name, err)
	}
	return info.Paused, nil
}
