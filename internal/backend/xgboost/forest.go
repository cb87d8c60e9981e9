package xgboost

import (
	"encoding/json"
	"fmt"
	"math"
)

// defaultLeft marks, in node.feature, a split that sends a missing value left.
const defaultLeft = 1 << 31

// node is one node of a flattened forest. Its three fields are read together at
// every step of a walk, so they sit together in 12 bytes (five nodes to a cache
// line) rather than in one array each; the right child is always left+1, so it
// needs no field.
type node struct {
	// feature is the split's feature index, defaultLeft set when NaN goes left.
	feature uint32
	// value is the threshold (x < value goes left) or, at a leaf, the leaf's value.
	value float32
	// left is the left child's index in the forest; 0 at a leaf, which no child is
	// (a child always comes after its parent).
	left int32
}

// forest is every tree of a gbtree or dart model in one array, each tree's nodes
// breadth first from its root.
type forest struct {
	nodes []node
	roots []int32 // each tree's root in nodes
	group []int32 // the output (class or target) each tree adds to
}

// newForest flattens a gbtree model. weights are dart's per-tree weights, folded
// into the leaves (nil for gbtree); nfeat is the model's feature count.
func newForest(raw json.RawMessage, weights []float64, ngroup, nfeat int) (*forest, error) {
	var tm treeModel
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, fmt.Errorf("%w: gradient_booster.model: %v", ErrInvalidModel, err)
	}
	if tm.Param.SizeLeafVector.V > 1 {
		return nil, fmt.Errorf("%w: its trees have vector leaves (size_leaf_vector %d, multi_strategy \"multi_output_tree\"); train with the default multi_strategy \"one_output_per_tree\"", ErrUnsupportedModel, tm.Param.SizeLeafVector.V)
	}
	if len(tm.TreeInfo) != len(tm.Trees) {
		return nil, fmt.Errorf("%w: %d trees but %d tree_info entries", ErrInvalidModel, len(tm.Trees), len(tm.TreeInfo))
	}
	if weights != nil && len(weights) != len(tm.Trees) {
		return nil, fmt.Errorf("%w: dart: %d trees but %d weight_drop entries", ErrInvalidModel, len(tm.Trees), len(weights))
	}
	f := &forest{roots: make([]int32, len(tm.Trees)), group: make([]int32, len(tm.Trees))}
	total := 0
	for _, t := range tm.Trees {
		total += len(t.LeftChildren)
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d nodes", ErrUnsupportedModel, total)
	}
	f.nodes = make([]node, 0, total)
	for i := range tm.Trees {
		g := tm.TreeInfo[i]
		if g < 0 || g >= ngroup {
			return nil, fmt.Errorf("%w: tree %d adds to output %d of %d", ErrInvalidModel, i, g, ngroup)
		}
		f.group[i] = int32(g)
		f.roots[i] = int32(len(f.nodes))
		w := float32(1)
		if weights != nil {
			w = float32(weights[i])
		}
		if err := f.add(&tm.Trees[i], i, w, nfeat); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// add appends one tree, breadth first, each node's children side by side.
func (f *forest) add(t *tree, id int, w float32, nfeat int) error {
	if t.Param.SizeLeafVector.V > 1 {
		return fmt.Errorf("%w: tree %d has vector leaves (size_leaf_vector %d, multi_strategy \"multi_output_tree\"); train with the default multi_strategy \"one_output_per_tree\"", ErrUnsupportedModel, id, t.Param.SizeLeafVector.V)
	}
	n := len(t.LeftChildren)
	if n == 0 || len(t.RightChildren) != n || len(t.SplitIndices) != n || len(t.SplitConditions) != n || len(t.DefaultLeft) != n ||
		(t.Param.NumNodes.Set && t.Param.NumNodes.V != int64(n)) {
		return fmt.Errorf("%w: tree %d: its node arrays are not all of num_nodes (%d) entries", ErrInvalidModel, id, t.Param.NumNodes.V)
	}
	if len(t.CategoriesNodes) > 0 {
		return categorical(id, t.CategoriesNodes[0], t)
	}
	base := len(f.nodes)
	f.nodes = append(f.nodes, node{})
	order := make([]int32, 1, n) // the tree's node ids in the forest's order
	seen := make([]bool, n)
	seen[0] = true
	for k := 0; k < len(order); k++ {
		old := order[k]
		l, r := t.LeftChildren[old], t.RightChildren[old]
		v := float32(t.SplitConditions[old])
		if l == -1 && r == -1 {
			f.nodes[base+k] = node{value: v * w}
			continue
		}
		if l < 0 || r < 0 || int(l) >= n || int(r) >= n || l == r || seen[l] || seen[r] {
			return fmt.Errorf("%w: tree %d: node %d has children %d and %d, which do not make a tree of %d nodes", ErrInvalidModel, id, old, l, r, n)
		}
		seen[l], seen[r] = true, true
		if int(old) < len(t.SplitType) && t.SplitType[old] != 0 {
			return categorical(id, int(old), t)
		}
		fi := t.SplitIndices[old]
		if fi < 0 || fi >= int64(nfeat) {
			return fmt.Errorf("%w: tree %d: node %d splits on feature %d, but the model has %d", ErrInvalidModel, id, old, fi, nfeat)
		}
		feat := uint32(fi)
		if t.DefaultLeft[old].V != 0 {
			feat |= defaultLeft
		}
		f.nodes[base+k] = node{feature: feat, value: v, left: int32(base + len(order))}
		order = append(order, l, r)
		f.nodes = append(f.nodes, node{}, node{})
	}
	return nil
}

func categorical(id, nid int, t *tree) error {
	feat := "?"
	if nid >= 0 && nid < len(t.SplitIndices) {
		feat = fmt.Sprint(t.SplitIndices[nid])
	}
	return fmt.Errorf("%w: tree %d splits on categories (node %d, feature %s): categorical splits are not supported; one-hot encode the feature, or train without enable_categorical", ErrUnsupportedModel, id, nid, feat)
}

// predict adds every tree's leaf for one row to its margins, in tree order as XGBoost
// does, in float32.
func (f *forest) predict(row []float32, margins []float32) {
	nodes := f.nodes
	if len(margins) == 1 {
		s := margins[0]
		for _, i := range f.roots {
			s += walk(nodes, i, row)
		}
		margins[0] = s
		return
	}
	for t, i := range f.roots {
		margins[f.group[t]] += walk(nodes, i, row)
	}
}

// walk follows one tree from its root to a leaf.
func walk(nodes []node, i int32, row []float32) float32 {
	for {
		n := &nodes[i]
		if n.left == 0 {
			return n.value
		}
		x := row[n.feature&^defaultLeft]
		i = n.left
		if x != x { // NaN: the split's default branch
			if n.feature&defaultLeft == 0 {
				i++
			}
		} else if !(x < n.value) {
			i++
		}
	}
}
