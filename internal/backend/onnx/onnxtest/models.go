package onnxtest

import "math/rand/v2"

// Linear is y = x·W + b with x of shape [batch, len(W)] and y of [batch, len(b)].
// batch is -1 for a dynamic batch dimension or 1 for a fixed one.
func Linear(batch int64, w [][]float32, b []float32) Graph {
	in, out := int64(len(w)), int64(len(b))
	flat := make([]float32, 0, in*out)
	for _, row := range w {
		flat = append(flat, row...)
	}
	return Graph{
		Inputs:  []Value{{Name: "x", Elem: Float, Dims: []int64{batch, in}}},
		Outputs: []Value{{Name: "y", Elem: Float, Dims: []int64{batch, out}}},
		Nodes: []Node{
			{Op: "MatMul", Inputs: []string{"x", "W"}, Outputs: []string{"xw"}},
			{Op: "Add", Inputs: []string{"xw", "B"}, Outputs: []string{"y"}},
		},
		Inits: []Init{{Name: "W", Dims: []int64{in, out}, Data: flat}, {Name: "B", Dims: []int64{out}, Data: b}},
	}
}

// Classifier is Linear followed by what scikit-learn classifiers export: an int64
// "label" (the argmax, shape [batch]) and "probabilities" (softmax, [batch, classes]).
func Classifier(w [][]float32, b []float32) Graph {
	g := Linear(-1, w, b)
	classes := int64(len(b))
	g.Outputs = []Value{
		{Name: "label", Elem: Int64, Dims: []int64{-1}},
		{Name: "probabilities", Elem: Float, Dims: []int64{-1, classes}},
	}
	g.Nodes = append(g.Nodes,
		Node{Op: "Softmax", Inputs: []string{"y"}, Outputs: []string{"probabilities"}, Ints: map[string]int64{"axis": 1}},
		Node{Op: "ArgMax", Inputs: []string{"y"}, Outputs: []string{"label"}, Ints: map[string]int64{"axis": 1, "keepdims": 0}},
	)
	return g
}

// Identity returns its input unchanged, for any element type and shape.
func Identity(elem Elem, dims []int64) Graph {
	return Graph{
		Inputs:  []Value{{Name: "x", Elem: elem, Dims: dims}},
		Outputs: []Value{{Name: "y", Elem: elem, Dims: dims}},
		Nodes:   []Node{{Op: "Identity", Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
}

// Dense is a Linear model of n inputs and n outputs with pseudo-random weights from
// seed: n*n*4 bytes of weights, so a test can make models of very different sizes.
// ONNX Runtime cannot fold the weights away because they multiply the input.
func Dense(n int, seed uint64) Graph {
	r := rand.New(rand.NewPCG(seed, seed))
	w := make([][]float32, n)
	for i := range w {
		w[i] = make([]float32, n)
		for j := range w[i] {
			w[i][j] = r.Float32() - 0.5
		}
	}
	return Linear(-1, w, make([]float32, n))
}
