package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The XGBoost cases: models/wine/v1, an XGBoost model.json served by the xgboost
// backend, one row by /predict and 1 and 1,024 rows by /v2 infer with the binary
// data extension, beside iris's /predict and XGBoost's own predict on the same rows.
const (
	CaseWine        = "wine /predict"
	CaseWineV2One   = "wine /v2 infer, 1 row, binary"
	CaseWineV2Batch = "wine /v2 infer, 1,024 rows, binary"
)

// wineBatchRows is the rows of the big case.
const wineBatchRows = 1024

// wineFeatures are models/wine/v1's features, in its input's order.
var wineFeatures = []string{"alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols", "flavanoids",
	"nonflavanoid_phenols", "proanthocyanins", "color_intensity", "hue", "od280_od315", "proline"}

// wineRows are n rows of values in the wine data's ranges, the same on every run.
func wineRows(n int) [][]float32 {
	lo := []float32{11, 0.7, 1.3, 10, 70, 0.9, 0.3, 0.1, 0.4, 1.2, 0.4, 1.2, 270}
	hi := []float32{15, 5.8, 3.3, 30, 162, 3.9, 5.1, 0.7, 3.6, 13, 1.8, 4, 1680}
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, len(lo))
		for j := range lo {
			rows[i][j] = lo[j] + (hi[j]-lo[j])*r.Float32()
		}
	}
	return rows
}

// wineBody is a /predict body of one row, its features by name.
func wineBody(row []float32) []byte {
	m := make(map[string]float32, len(row))
	for i, v := range row {
		m[wineFeatures[i]] = v
	}
	b, _ := json.Marshal(map[string]any{"model": "wine", "version": "v1", "data": m})
	return b
}

// wineBinary is a /v2 infer body of rows, FP32 [n, 13] as the binary data extension,
// asking for binary outputs.
func wineBinary(rows [][]float32) (body []byte, headerLen int) {
	header := fmt.Sprintf(`{"inputs":[{"name":"input","shape":[%d,13],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, len(rows), 4*13*len(rows))
	body = []byte(header)
	for _, r := range rows {
		body = appendFP32(body, r)
	}
	return body, len(header)
}

// Library is XGBoost's own predict timed by tools/bench-xgboost.py on the same rows
// and model: p50 wall times, with the library's version and the threads it used.
type Library struct {
	Version  string        `json:"xgboost"`
	Threads  int           `json:"threads"`
	Rows     int           `json:"rows"`
	Inplace1 time.Duration `json:"-"`
	InplaceN time.Duration `json:"-"`
	DMatrix1 time.Duration `json:"-"`
	DMatrixN time.Duration `json:"-"`
	// NA says why there is no figure (no python3-xgboost, say).
	NA string `json:"-"`
}

// library runs tools/bench-xgboost.py under Debian's /usr/bin/python3 on rows, with
// XGBoost's default threads and with one.
func library(root, modelsDir string, rows [][]float32) (def, one Library) {
	dir, err := os.MkdirTemp("", "benchhttp-xgboost-")
	if err != nil {
		return Library{NA: err.Error()}, Library{NA: err.Error()}
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "rows.json")
	b, _ := json.Marshal(rows)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return Library{NA: err.Error()}, Library{NA: err.Error()}
	}
	run := func(env ...string) Library {
		cmd := exec.Command("/usr/bin/python3", filepath.Join(root, "tools", "bench-xgboost.py"),
			"--model", filepath.Join(modelsDir, "wine", "v1", "model.json"), "--rows", file, "--rounds", "500")
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return Library{NA: fmt.Sprintf("tools/bench-xgboost.py: %v %s", err, bytes.TrimSpace(stderr.Bytes()))}
		}
		var raw struct {
			Library
			Inplace1 float64 `json:"inplace_predict_1"`
			InplaceN float64 `json:"inplace_predict_n"`
			DMatrix1 float64 `json:"dmatrix_predict_1"`
			DMatrixN float64 `json:"dmatrix_predict_n"`
		}
		if err := json.Unmarshal(out, &raw); err != nil {
			return Library{NA: fmt.Sprintf("tools/bench-xgboost.py printed %q", out)}
		}
		l := raw.Library
		sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
		l.Inplace1, l.InplaceN, l.DMatrix1, l.DMatrixN = sec(raw.Inplace1), sec(raw.InplaceN), sec(raw.DMatrix1), sec(raw.DMatrixN)
		return l
	}
	def = run()
	one = run("OMP_NUM_THREADS=1")
	one.Threads = 1
	return def, one
}
