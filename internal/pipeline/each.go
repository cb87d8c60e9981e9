package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/inferd/inferd/internal/telemetry"
)

// RunEachWith is RunWith for a batch whose items fail alone (a batch sent with
// on_error: continue): an item whose input a stage refuses (an InputError) is set
// aside with its error, and the stages after it run on the others. out holds a result
// per item, nil for each item in failed; failed is in the order of items, the Item of
// each its index in items. An error of any other kind (a cancelled context, a model
// that fails to run) fails the whole run, as it fails RunWith's.
//
// Each stage runs on the whole batch first, as in RunWith. Only when it refuses an
// item does it run again, on each of the other items alone, to learn which of them
// it refuses too: a step or a model treats every item on its own (Step), so an
// item's value is the one the whole batch would have given it. A batch of good items
// costs what RunWith costs, one with bad items two runs of the stage that refuses
// them, however many they are.
func (p *Pipeline) RunEachWith(ctx context.Context, items []json.RawMessage, observe Observer, predict PredictFunc, tr *Tracing) (out []json.RawMessage, failed []*InputError, err error) {
	defer Recover(&err)
	if observe == nil {
		observe = func(Stage, time.Duration) {}
	}
	r := &eachRun{batch: make([]any, len(items)), idx: make([]int, len(items))}
	for i, it := range items {
		r.batch[i], r.idx[i] = it, i
	}
	if err := r.steps(ctx, StagePreprocess, p.Pre, observe, tr); err != nil {
		return nil, nil, err
	}
	if len(r.batch) > 0 {
		mctx, span := tr.start(ctx, StageModel, nil, len(r.batch))
		start := time.Now()
		err := r.stage(mctx, func(ctx context.Context, batch []any) ([]any, error) {
			out, err := predict(ctx, batch)
			if err != nil {
				return nil, classify(StageModel, "model", err)
			}
			return out, checkLen(StageModel, "model", len(batch), len(out))
		})
		observe(StageModel, time.Since(start))
		telemetry.End(span, err)
		if err != nil {
			return nil, nil, err
		}
	}
	if err := r.steps(ctx, StagePostprocess, p.Post, observe, tr); err != nil {
		return nil, nil, err
	}
	if out, err = r.encode(len(items)); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(r.failed, func(a, b *InputError) int { return a.Item - b.Item })
	return out, r.failed, nil
}

// eachRun is the state of one RunEachWith: the values of the items still in the run,
// the index in items of each, and the items set aside.
type eachRun struct {
	batch  []any
	idx    []int
	failed []*InputError
}

// steps runs a stage's steps as runSteps does, each through stage.
func (r *eachRun) steps(ctx context.Context, stage Stage, steps []Step, observe Observer, tr *Tracing) (err error) {
	if len(steps) == 0 || len(r.batch) == 0 {
		return nil
	}
	ctx, span := tr.start(ctx, stage, steps, len(r.batch))
	start := time.Now()
	defer func() {
		observe(stage, time.Since(start))
		telemetry.End(span, err)
	}()
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.stage(ctx, func(ctx context.Context, batch []any) ([]any, error) {
			out, err := s.Apply(ctx, batch)
			if err != nil {
				return nil, classify(stage, s.Name(), err)
			}
			return out, checkLen(stage, s.Name(), len(batch), len(out))
		})
		if err != nil || len(r.batch) == 0 {
			return err
		}
	}
	return nil
}

// stage applies f to the items in the run; when f refuses one, to each of the others
// alone, and sets aside every item it refuses.
func (r *eachRun) stage(ctx context.Context, f func(context.Context, []any) ([]any, error)) error {
	out, err := f(ctx, r.batch)
	if err == nil {
		r.batch = out
		return nil
	}
	bad, ok := inputError(err, len(r.batch))
	if !ok {
		return err
	}
	batch, idx := make([]any, 0, len(r.batch)-1), make([]int, 0, len(r.batch)-1)
	for k, v := range r.batch {
		if k == bad.Item {
			r.fail(r.idx[k], bad)
			continue
		}
		one, err := f(ctx, []any{v})
		if err != nil {
			ie, ok := inputError(err, 1)
			if !ok {
				return err
			}
			r.fail(r.idx[k], ie)
			continue
		}
		batch, idx = append(batch, one[0]), append(idx, r.idx[k])
	}
	r.batch, r.idx = batch, idx
	return nil
}

// encode writes the results of the items left, as encode does, setting aside those
// whose result has no JSON spelling; out has n entries, nil for the items set aside.
func (r *eachRun) encode(n int) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, n)
	enc, err := encode(r.batch)
	if err == nil {
		for k, raw := range enc {
			out[r.idx[k]] = raw
		}
		return out, nil
	}
	if _, ok := inputError(err, len(r.batch)); !ok {
		return nil, err
	}
	for k, v := range r.batch {
		one, err := encode([]any{v})
		if err != nil {
			ie, ok := inputError(err, 1)
			if !ok {
				return nil, err
			}
			r.fail(r.idx[k], ie)
			continue
		}
		out[r.idx[k]] = one[0]
	}
	return out, nil
}

// fail sets aside the item at index i of the run's items with ie.
func (r *eachRun) fail(i int, ie *InputError) {
	c := *ie
	c.Item = i
	r.failed = append(r.failed, &c)
}

// inputError is err's InputError when it names one of n items.
func inputError(err error, n int) (*InputError, bool) {
	var ie *InputError
	if !errors.As(err, &ie) || ie.Item < 0 || ie.Item >= n {
		return nil, false
	}
	return ie, true
}
