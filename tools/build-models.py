#!/usr/bin/python3
"""Builds the example model repository (models/) and the expected outputs the Go tests
compare against (internal/repository/testdata/examples.json), and the XGBoost test
models with XGBoost's own answers (internal/backend/xgboost/testdata/).

Run it with Debian's interpreter, which sees python3-onnx, python3-sklearn and
python3-numpy and python3-xgboost (the first python3 on PATH may be another one):

    apt-get install -y python3-onnx python3-sklearn python3-xgboost
    /usr/bin/python3 tools/build-models.py

The models are trained on the data sets scikit-learn ships (Iris, diabetes,
handwritten digits), so nothing is downloaded. The ONNX graphs are written with
onnx.helper rather than skl2onnx, which Debian does not package: a linear model is a
MatMul and an Add, a multi-layer perceptron a few of them with Relu between. The
output is deterministic: running it twice gives the same bytes (training runs on
one BLAS thread, so sums are always added in the same order).

Expected outputs are computed here with numpy, independently of ONNX Runtime and of
the Go steps, so the Go tests check both.

digits-cnn is trained with PyTorch (apt-get install -y python3-torch as well) and
exported with torch.onnx.export; its expected outputs are torch's own.
"""

import argparse
import io
import json
import os
import sys
import warnings

# Before numpy loads: one BLAS thread makes training's floating-point sums, and so the
# weights, the same on every run.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IRIS_FEATURES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
DIABETES_FEATURES = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]
OPSET = 13
IR_VERSION = 8


def linear_graph(name, doc, w, b, dtype, outputs):
    """x·W + b as an ONNX model with a dynamic batch dimension.

    outputs is "logits" (the raw scores, [N, k]), "classifier" (an int64 "label" [N]
    and "probabilities" [N, k], as scikit-learn classifiers export) or "regression"
    ("prediction" [N, 1]).
    """
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    n_in, n_out = w.shape
    inits = [
        numpy_helper.from_array(w.astype(dtype), "W"),
        numpy_helper.from_array(b.astype(dtype), "B"),
    ]
    nodes = [
        helper.make_node("MatMul", ["input", "W"], ["xw"]),
        helper.make_node("Add", ["xw", "B"], ["scores"]),
    ]
    if outputs == "logits":
        nodes[-1].output[0] = "logits"
        outs = [helper.make_tensor_value_info("logits", elem, ["N", n_out])]
    elif outputs == "classifier":
        nodes += [
            helper.make_node("Softmax", ["scores"], ["probabilities"], axis=1),
            helper.make_node("ArgMax", ["scores"], ["label"], axis=1, keepdims=0),
        ]
        outs = [
            helper.make_tensor_value_info("label", TensorProto.INT64, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", n_out]),
        ]
    else:
        nodes[-1].output[0] = "prediction"
        outs = [helper.make_tensor_value_info("prediction", elem, ["N", n_out])]
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("input", elem, ["N", n_in])], outs, inits, doc_string=doc
    )
    model = helper.make_model(graph, producer_name="inferd tools/build-models.py", opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def mlp_graph(name, doc, layers):
    """An MLP as an ONNX model with a dynamic batch dimension: for each (W, b) of
    layers x·W + b, with Relu between layers; the output is the last layer's "logits"."""
    n_in, n_out = layers[0][0].shape[0], layers[-1][0].shape[1]
    inits, nodes, x = [], [], "input"
    for i, (w, b) in enumerate(layers):
        inits += [numpy_helper.from_array(w.astype(np.float32), f"W{i}"), numpy_helper.from_array(b.astype(np.float32), f"B{i}")]
        last = i == len(layers) - 1
        nodes += [
            helper.make_node("MatMul", [x, f"W{i}"], [f"xw{i}"]),
            helper.make_node("Add", [f"xw{i}", f"B{i}"], ["logits" if last else f"z{i}"]),
        ]
        if not last:
            nodes.append(helper.make_node("Relu", [f"z{i}"], [f"h{i}"]))
            x = f"h{i}"
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", n_in])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", n_out])], inits, doc_string=doc
    )
    model = helper.make_model(graph, producer_name="inferd tools/build-models.py", opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def yaml_list(values):
    return "[" + ", ".join(repr(float(v)) if isinstance(v, (float, np.floating)) else str(v) for v in values) + "]"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def check_no_tie(v, decimals, margin):
    """The expected outputs are rounded here half to even and in Go half away from
    zero, from values that differ in the last bits: fine unless v sits on a tie."""
    x = v * 10**decimals
    assert abs(x - np.floor(x) - 0.5) > margin, f"{v} is too close to a rounding tie; pick other rows"


def top_k(scores, labels, k):
    """top_k's result: highest first, ties to the lower index."""
    order = np.argsort(-scores, kind="stable")[:k]
    return [{"label": labels[i], "score": float(scores[i])} for i in order]


def iris(models, examples):
    data = load_iris()
    x, y = data.data, data.target
    labels = [str(n) for n in data.target_names]

    # v1: logistic regression on the raw measurements; the model emits logits and
    # the pipeline applies softmax.
    v1 = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    w1 = v1.coef_.T.astype(np.float32)
    b1 = v1.intercept_.astype(np.float32)

    # v2: stronger regularisation on standardised measurements; the model emits
    # probabilities and a label, as skl2onnx would, and the pipeline standardises.
    mean, std = x.mean(axis=0), x.std(axis=0)
    v2 = LogisticRegression(C=0.1, max_iter=1000).fit((x - mean) / std, y)
    w2 = v2.coef_.T.astype(np.float32)
    b2 = v2.intercept_.astype(np.float32)
    print(f"iris v1 accuracy {v1.score(x, y):.3f}, v2 {v2.score((x - mean) / std, y):.3f}", file=sys.stderr)

    to_tensor = f"""  - to_tensor:
      features: {yaml_list(IRIS_FEATURES)}
      dtype: float32
      shape: [4]
"""
    top = f"""  - top_k:
      k: 3
      labels: {yaml_list(labels)}
  - round:
      decimals: 4
"""
    write(os.path.join(models, "iris", "v1", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Iris species from sepal and petal measurements in cm: logistic regression
  (C=1.0) on the raw measurements. Returns the three species ranked by probability,
  rounded to 4 decimals.
backend: onnx
artifact: model.onnx
max_batch_size: 256
preprocess:
{to_tensor}postprocess:
  - softmax
{top}""")
    write(os.path.join(models, "iris", "v1", "model.onnx"), linear_graph(
        "iris_v1", "Iris logistic regression, C=1.0, raw features; outputs logits", w1, b1, np.float32, "logits").SerializeToString())

    write(os.path.join(models, "iris", "v2", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Iris species from sepal and petal measurements in cm: logistic regression
  (C=0.1) on standardised measurements. Returns the three species ranked by
  probability, rounded to 4 decimals.
backend: onnx
artifact: model.onnx
max_batch_size: 256
preprocess:
{to_tensor}  - standardize:
      mean: {yaml_list(mean)}
      std: {yaml_list(std)}
postprocess:
  - top_k:
      output: probabilities
      k: 3
      labels: {yaml_list(labels)}
  - round:
      decimals: 4
""")
    write(os.path.join(models, "iris", "v2", "model.onnx"), linear_graph(
        "iris_v2", "Iris logistic regression, C=0.1, standardised features; outputs label and probabilities", w2, b2, np.float32, "classifier").SerializeToString())

    write(os.path.join(models, "iris", "routing.yaml"), """# Generated by tools/build-models.py. A request that names no version goes to v1
# nine times in ten and to the v2 canary otherwise.
strategy: weighted
weights:
  v1: 90
  v2: 10
""")

    # Inputs as clients send them: arrays and named-feature objects, one of each
    # species and the README's example.
    rows = [x[0], x[61], x[121], x[77], np.array([5.1, 3.5, 1.4, 0.2])]
    items = [list(map(float, r)) for r in rows[:-1]] + [dict(zip(IRIS_FEATURES, map(float, rows[-1])))]
    feats = np.array([r if isinstance(r, list) else [r[f] for f in IRIS_FEATURES] for r in items])
    x32 = feats.astype(np.float32).astype(np.float64)
    logits1 = x32 @ w1.astype(np.float64) + b1.astype(np.float64)
    std_in = ((x32 - mean) / std).astype(np.float32).astype(np.float64)
    logits2 = std_in @ w2.astype(np.float64) + b2.astype(np.float64)
    examples["iris"] = {}
    for version, logits in (("v1", logits1), ("v2", logits2)):
        raw = [top_k(p, labels, 3) for p in softmax(logits)]
        for entry in (e for r in raw for e in r):
            check_no_tie(entry["score"], 4, 1e-3)  # v2 computes in float32
        rounded = [[dict(e, score=round(e["score"], 4)) for e in r] for r in raw]
        examples["iris"][version] = {"items": items, "results": rounded, "raw": raw}
    # What a tensor call to each version answers (its softmax and round act on
    # tensors too): the members' answers to the graphs below.
    iris_graphs(models, examples, labels, items, np.round(softmax(logits1), 4), np.round(softmax(logits2), 4))


def iris_graphs(models, examples, labels, items, p1, p2):
    """The example graphs over iris's two versions, and their answers from the
    members' (p1, p2: each version's class probabilities per item, as its tensor call
    rounds them)."""
    to_tensor = f"""preprocess:
  - to_tensor:
      features: {yaml_list(IRIS_FEATURES)}
      dtype: float32
      shape: [4]
"""
    write(os.path.join(models, "iris-ensemble", "v1", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Iris species by both iris versions at once: the mean of v1's and v2's class
  probabilities, ranked as iris ranks them. The mean of two 4-decimal scores is
  exact at 5 decimals, so it is rounded to 5.
{to_tensor}graph:
  inputs:
    - {{name: input, dtype: float32, shape: [-1, 4]}}
  steps:
    - {{name: v1, model: iris, version: v1, inputs: {{input: request.input}}}}
    - {{name: v2, model: iris, version: v2, inputs: {{input: request.input}}}}
  joins:
    - {{name: mean, mean: [v1.logits, v2.probabilities]}}
  outputs:
    probabilities: mean
postprocess:
  - top_k:
      k: 3
      labels: {yaml_list(labels)}
  - round:
      decimals: 5
""")
    mean = (p1 + p2) / 2
    raw = [top_k(p, labels, 3) for p in mean]
    rounded = [[dict(e, score=round(e["score"], 5)) for e in r] for r in raw]
    examples["iris-ensemble"] = {"v1": {"items": items, "results": rounded, "raw": raw}}

    write(os.path.join(models, "iris-cascade", "v1", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Iris species by iris v1, and by iris v2 when v1 is unsure (its top score below
  0.9): the large model runs only for the flowers that need it. A request's rows are
  decided together, so one unsure flower sends its whole batch to v2. Should v2
  fail, the answer is even odds rather than an error.
{to_tensor}graph:
  inputs:
    - {{name: input, dtype: float32, shape: [-1, 4]}}
  steps:
    - {{name: small, model: iris, version: v1, inputs: {{input: request.input}}}}
    - name: large
      model: iris
      version: v2
      inputs: {{input: request.input}}
      when: {{source: small.logits, max: {{below: 0.9}}}}
      on_error: fallback
      fallback: {{probabilities: [0.3333, 0.3333, 0.3334]}}
  joins:
    - {{name: answer, pick: [large.probabilities, small.logits]}}
  outputs:
    probabilities: answer
postprocess:
  - top_k:
      k: 3
      labels: {yaml_list(labels)}
  - round:
      decimals: 4
""")
    unsure = p1.max(axis=1) < 0.9
    alone = [top_k(p2[i] if unsure[i] else p1[i], labels, 3) for i in range(len(items))]
    batch = [top_k(p, labels, 3) for p in (p2 if unsure.any() else p1)]
    assert unsure.any() and not unsure.all(), "the examples must take the condition both ways"
    examples["iris-cascade"] = {"v1": {"items": items, "results": alone, "batch": batch}}


def diabetes(models, examples):
    data = load_diabetes(scaled=False)
    x, y = data.data, data.target
    mean, std = x.mean(axis=0), x.std(axis=0)
    reg = Ridge(alpha=1.0).fit((x - mean) / std, y)
    print(f"diabetes v1 R^2 {reg.score((x - mean) / std, y):.3f}", file=sys.stderr)
    w = reg.coef_.reshape(-1, 1)
    b = np.array([reg.intercept_])

    write(os.path.join(models, "diabetes", "v1", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Diabetes progression one year after baseline (scikit-learn's diabetes data):
  ridge regression (alpha=1.0) on standardised age, sex (1 or 2), BMI, mean blood
  pressure and six blood serum measurements s1-s6. Returns the predicted score,
  rounded to 2 decimals.
backend: onnx
artifact: model.onnx
preprocess:
  - to_tensor:
      features: {yaml_list(DIABETES_FEATURES)}
      dtype: float64
  - standardize:
      mean: {yaml_list(mean)}
      std: {yaml_list(std)}
postprocess:
  - squeeze
  - round:
      decimals: 2
""")
    write(os.path.join(models, "diabetes", "v1", "model.onnx"), linear_graph(
        "diabetes_v1", "Diabetes ridge regression, alpha=1.0, standardised features", w, b, np.float64, "regression").SerializeToString())

    rows = [x[0], x[1], x[100], x[441]]
    items = [list(map(float, r)) for r in rows[:-1]] + [dict(zip(DIABETES_FEATURES, map(float, rows[-1])))]
    feats = np.array([r if isinstance(r, list) else [r[f] for f in DIABETES_FEATURES] for r in items])
    raw = ((feats - mean) / std) @ w[:, 0] + b[0]
    for v in raw:
        check_no_tie(v, 2, 1e-6)
    examples["diabetes"] = {"v1": {"items": items, "results": [round(float(v), 2) for v in raw], "raw": [float(v) for v in raw]}}


def digits(models, examples):
    """A model heavy enough that a batch of requests costs less than the requests one
    by one: an MLP of two hidden layers of 2048 units on the 8x8 handwritten digits
    (64 pixel intensities 0..16), about 4.3M weights, 17 MB of float32."""
    data = load_digits()
    x, y = data.data, data.target
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)
    # A few epochs: the model is here for its cost per call, and already reads digits
    # well; more would only make the build slower.
    mlp = MLPClassifier(hidden_layer_sizes=(2048, 2048), max_iter=8, batch_size=64, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp.fit(x_train / 16.0, y_train)
    print(f"digits v1 test accuracy {mlp.score(x_test / 16.0, y_test):.3f} ({len(y_test)} held-out images)", file=sys.stderr)
    # Clients send the intensities as the data set has them (0..16): the scaling the
    # network was trained with is folded into the first layer's weights.
    weights = [w.astype(np.float32) for w in mlp.coefs_]
    weights[0] = (mlp.coefs_[0] / 16.0).astype(np.float32)
    biases = [b.astype(np.float32) for b in mlp.intercepts_]
    labels = [str(i) for i in range(10)]

    write(os.path.join(models, "digits", "v1", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Handwritten digit 0-9 from an 8x8 image (scikit-learn's digits data): an MLP with
  two hidden layers of 2048 units (ReLU). Takes the 64 pixel intensities, 0 to 16,
  row by row. Returns the three likeliest digits ranked by probability, rounded to 4
  decimals. Heavy on purpose: a batch of 64 costs far less than 64 calls, so
  concurrent requests are coalesced into one call (dynamic_batching), two such
  calls at a time so that a batch can gather while another runs.
backend: onnx
artifact: model.onnx
max_batch_size: 128
dynamic_batching:
  max_queue_delay: 2ms
  max_calls: 2
preprocess:
  - to_tensor:
      dtype: float32
      shape: [64]
postprocess:
  - softmax
  - top_k:
      k: 3
      labels: {json.dumps(labels)}
  - round:
      decimals: 4
""")
    write(os.path.join(models, "digits", "v1", "model.onnx"), mlp_graph(
        "digits_v1", "Handwritten digits MLP 64-2048-2048-10, ReLU, trained 8 epochs; inputs 0..16; outputs logits",
        list(zip(weights, biases))).SerializeToString())

    def forward(rows):
        h = rows.astype(np.float64)
        for w, b in zip(weights[:-1], biases[:-1]):
            h = np.maximum(h @ w.astype(np.float64) + b.astype(np.float64), 0)
        return [top_k(p, labels, 3) for p in softmax(h @ weights[-1].astype(np.float64) + biases[-1].astype(np.float64))]

    def clear_of_ties(ranked):
        # ONNX Runtime sums 2048 float32 terms: keep scores well away from a tie.
        try:
            for e in ranked:
                check_no_tie(e["score"], 4, 1e-2)
        except AssertionError:
            return False
        return True

    # Held-out images, the first of each of several digits whose scores round
    # unambiguously; the first is docs/api.md's.
    picks = [next(i for i in np.flatnonzero(y_test == d) if clear_of_ties(forward(x_test[[i]])[0])) for d in (3, 0, 7, 8, 5)]
    rows = x_test[picks]
    raw = forward(rows)
    rounded = [[dict(e, score=round(e["score"], 4)) for e in r] for r in raw]
    items = [list(map(int, r)) for r in rows]
    examples["digits"] = {"v1": {"items": items, "results": rounded, "raw": raw}}


def digits_cnn(models, examples):
    """A PyTorch model served with no steps: a small convolutional network on the 8x8
    digits, trained with torch and exported with torch.onnx.export, whose model.yaml
    names only its backend and artifact (and a description). Its input is the image as
    the data set has it, [N, 1, 8, 8] intensities 0..16, and it answers the digit
    ("label", argmax) and the ten probabilities (softmax), so /predict's data is the
    image as nested arrays and its result both outputs by name. The expected outputs
    are torch's own, on held-out images."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    class DigitsCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 8x4x4
                nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 16x2x2
            )
            self.classify = nn.Linear(64, 10)

        def logits(self, x):
            # Clients send the intensities as the data set has them, 0..16.
            return self.classify(torch.flatten(self.features(x / 16.0), 1))

        def forward(self, x):
            z = self.logits(x)
            return torch.argmax(z, dim=1), torch.softmax(z, dim=1)

    data = load_digits()
    x, y = data.images.astype(np.float32)[:, None, :, :], data.target
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)
    net = DigitsCNN()
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    order = torch.Generator().manual_seed(0)
    for _ in range(15):
        perm = torch.randperm(len(xt), generator=order)
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(net.logits(xt[idx]), yt[idx]).backward()
            opt.step()
    net.eval()
    with torch.no_grad():
        label, _ = net(torch.from_numpy(x_test))
    accuracy = float((label.numpy() == y_test).mean())
    print(f"digits-cnn v1 test accuracy {accuracy:.3f} ({len(y_test)} held-out images), torch {torch.__version__}", file=sys.stderr)

    write(os.path.join(models, "digits-cnn", "v1", "model.yaml"), """# Generated by tools/build-models.py; edit that script instead.
description: Handwritten digit 0-9 from an 8x8 image, [1,8,8] intensities 0 to 16 (a PyTorch CNN exported with torch.onnx.export, served with no steps); answers label and probabilities.
backend: onnx
artifact: model.onnx
""")
    buf = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(net, torch.zeros(1, 1, 8, 8), buf, input_names=["image"], output_names=["label", "probabilities"],
                          dynamic_axes={"image": {0: "N"}, "label": {0: "N"}, "probabilities": {0: "N"}}, opset_version=OPSET)
    model = onnx.load_from_string(buf.getvalue())
    model.doc_string = "Handwritten digits CNN 1x8x8 -> conv 8 -> pool -> conv 16 -> pool -> 10, trained 15 epochs with torch; inputs 0..16"
    onnx.checker.check_model(model)
    write(os.path.join(models, "digits-cnn", "v1", "model.onnx"), model.SerializeToString())

    # Held-out images, two of each digit, whose likeliest digit leads clearly, so the
    # label cannot flip on a float32 rounding.
    with torch.no_grad():
        label, probs = net(torch.from_numpy(x_test))
    top2 = np.sort(probs.numpy(), axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-3
    picks = [i for d in range(10) for i in np.flatnonzero((y_test == d) & clear)[:2]]
    items = [x_test[i].astype(int).tolist() for i in picks]
    results = [{"label": int(label[i]), "probabilities": [float(p) for p in probs[i].numpy()]} for i in picks]
    examples["digits-cnn"] = {"v1": {"items": items, "results": results}}


WINE_FEATURES = ["alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols", "flavanoids",
                 "nonflavanoid_phenols", "proanthocyanins", "color_intensity", "hue", "od280_od315", "proline"]


def wine(models, examples):
    """An XGBoost classifier served natively (backend xgboost): wine cultivar from 13
    chemical measurements (scikit-learn's wine data), multi:softprob, saved as XGBoost
    saves it (model.json)."""
    import xgboost as xgb
    data = load_wine()
    # XGBoost reads the values as float32, as the served model's to_tensor does.
    x, y = data.data, data.target
    labels = [str(n) for n in data.target_names]
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)
    clf = xgb.XGBClassifier(n_estimators=30, max_depth=3, learning_rate=0.3, objective="multi:softprob",
                            tree_method="hist", n_jobs=1, random_state=0)
    clf.fit(x_train, y_train)
    clf.get_booster().feature_names = WINE_FEATURES
    print(f"wine v1 test accuracy {clf.score(x_test, y_test):.3f} ({len(y_test)} held-out wines)", file=sys.stderr)
    write(os.path.join(models, "wine", "v1", "model.yaml"), f"""# Generated by tools/build-models.py; edit that script instead.
description: >-
  Wine cultivar (class_0, class_1 or class_2) from 13 chemical measurements
  (scikit-learn's wine data): gradient-boosted trees, XGBoost multi:softprob, 30
  rounds of depth 3, served natively from XGBoost's own model.json. Returns the
  three cultivars ranked by probability, rounded to 4 decimals.
backend: xgboost
artifact: model.json
max_batch_size: 1024
preprocess:
  - to_tensor:
      features: {yaml_list(WINE_FEATURES)}
      dtype: float32
      shape: [13]
postprocess:
  - top_k:
      output: probabilities
      k: 3
      labels: {yaml_list(labels)}
  - round:
      decimals: 4
""")
    path = os.path.join(models, "wine", "v1", "model.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    clf.get_booster().save_model(path)

    rows = x_test[[0, 1, 2, 5]]
    proba = clf.get_booster().predict(xgb.DMatrix(rows, feature_names=WINE_FEATURES))
    ranked = [top_k(p.astype(np.float64), labels, 3) for p in proba]
    for r in ranked:
        for e in r:
            check_no_tie(e["score"], 4, 1e-3)
    items = [list(map(float, r)) for r in rows[:-1]] + [dict(zip(WINE_FEATURES, map(float, rows[-1])))]
    rounded = [[dict(e, score=round(e["score"], 4)) for e in r] for r in ranked]
    examples["wine"] = {"v1": {"items": items, "results": rounded, "raw": ranked}}


def with_nan(rng, x, frac):
    """x with about frac of its values missing (NaN), which XGBoost sends down each
    split's default branch."""
    x = x.astype(np.float32).copy()
    x[rng.random_sample(x.shape) < frac] = np.nan
    return x


def xgboost_models(testdata):
    """Small XGBoost models of each booster and objective the xgboost backend serves,
    trained with missing values, each saved as JSON and as UBJSON, and answers.json:
    their test rows (null for NaN) and XGBoost's own outputs for them, as predict_proba
    and predict give them. The 2.x- and 3.x-shaped files (v2_*.json, v3_*.json) are
    1.7.4's models rewritten in the shapes those versions write (see testdata/README.md):
    Debian has no newer XGBoost to write them."""
    import xgboost as xgb
    rng = np.random.RandomState(0)
    bc = load_breast_cancer()
    xb, yb = with_nan(rng, bc.data, 0.1), bc.target
    ir = load_iris()
    xi, yi = with_nan(rng, ir.data, 0.1), ir.target
    db = load_diabetes()
    xd, yd = with_nan(rng, db.data, 0.1), db.target
    yd01 = (yd - yd.min()) / (yd.max() - yd.min())
    base = {"nthread": 1, "seed": 0, "max_depth": 3, "tree_method": "hist"}
    specs = [
        # name, params, x, y, rounds, feature names
        ("binary_logistic", {"objective": "binary:logistic"}, xb, yb, 20, [f"f_{i}" for i in range(xb.shape[1])]),
        ("binary_base_score", {"objective": "binary:logistic", "base_score": 0.3}, xb, yb, 10, None),
        ("binary_logitraw", {"objective": "binary:logitraw"}, xb, yb, 10, None),
        ("binary_hinge", {"objective": "binary:hinge"}, xb, yb, 10, None),
        ("multi_softprob", {"objective": "multi:softprob", "num_class": 3}, xi, yi, 15, IRIS_FEATURES),
        ("multi_softmax", {"objective": "multi:softmax", "num_class": 3}, xi, yi, 15, None),
        ("reg_squarederror", {"objective": "reg:squarederror"}, xd, yd, 20, DIABETES_FEATURES),
        ("reg_logistic", {"objective": "reg:logistic"}, xd, yd01, 20, None),
        ("reg_absoluteerror", {"objective": "reg:absoluteerror"}, xd, yd, 10, None),
        ("reg_pseudohubererror", {"objective": "reg:pseudohubererror", "huber_slope": 50.0}, xd, yd, 10, None),
        ("reg_squaredlogerror", {"objective": "reg:squaredlogerror"}, xd, yd, 10, None),
        ("count_poisson", {"objective": "count:poisson"}, xd, np.round(yd / 10), 10, None),
        ("reg_gamma", {"objective": "reg:gamma"}, xd, yd, 10, None),
        ("reg_tweedie", {"objective": "reg:tweedie", "tweedie_variance_power": 1.3}, xd, yd, 10, None),
        ("survival_cox", {"objective": "survival:cox"}, xd, np.where(np.arange(len(yd)) % 3 == 0, -yd, yd), 10, None),
        ("rank_pairwise", {"objective": "rank:pairwise"}, xd, np.round(yd01 * 4), 10, None),
        ("random_forest", {"objective": "binary:logistic", "num_parallel_tree": 4, "subsample": 0.8,
                           "colsample_bynode": 0.8, "learning_rate": 1.0}, xb, yb, 1, None),
        ("dart", {"objective": "binary:logistic", "booster": "dart", "rate_drop": 0.2, "skip_drop": 0.0}, xb, yb, 15, None),
        ("dart_multi", {"objective": "multi:softprob", "num_class": 3, "booster": "dart", "rate_drop": 0.2,
                        "skip_drop": 0.0}, xi, yi, 10, None),
        ("gblinear", {"objective": "reg:squarederror", "booster": "gblinear"}, xd, yd, 20, None),
        ("gblinear_multi", {"objective": "multi:softprob", "num_class": 3, "booster": "gblinear"}, xi, yi, 20, None),
    ]
    answers = []
    for name, params, x, y, rounds, names in specs:
        p = dict(base, **params)
        if p.get("booster") == "gblinear":
            del p["max_depth"], p["tree_method"]
        dtrain = xgb.DMatrix(x, label=y, feature_names=names, missing=np.nan)
        if name == "rank_pairwise":
            dtrain.set_group([len(y) // 4] * 3 + [len(y) - 3 * (len(y) // 4)])
        bst = xgb.train(p, dtrain, rounds)
        # Test rows: held-in rows with their NaNs, a row with every value missing and
        # rows with fresh NaNs.
        rows = np.vstack([x[:12], np.full((1, x.shape[1]), np.nan, dtype=np.float32), with_nan(rng, x[12:24], 0.3)])
        dtest = xgb.DMatrix(rows, feature_names=names, missing=np.nan)
        pred = bst.predict(dtest)
        obj = params["objective"]
        outputs = {}
        if obj == "binary:logistic":
            outputs["probabilities"] = np.stack([1 - pred, pred], axis=1)
        elif obj == "multi:softprob":
            outputs["probabilities"] = pred
        elif obj == "multi:softmax":
            outputs["predictions"] = pred
            margin = bst.predict(dtest, output_margin=True).astype(np.float64)
            outputs["probabilities"] = softmax(margin)
        else:
            outputs["predictions"] = pred
        files = [name + ".json", name + ".ubj"]
        bst.save_model(os.path.join(testdata, files[0]))
        bst.save_model(os.path.join(testdata, files[1]))
        answers.append({"name": name, "files": files, "rows": rows, "outputs": outputs})
        if name in ("binary_logistic", "multi_softprob", "reg_squarederror", "dart"):
            for version in (2, 3):
                shaped = reshape_xgboost_json(json.loads(bst.save_raw("json")), version)
                vname = f"v{version}_{name}.json"
                write(os.path.join(testdata, vname), json.dumps(shaped, separators=(",", ":")))
                answers.append({"name": f"v{version}_{name}", "files": [vname], "rows": rows, "outputs": outputs})
        if name == "binary_logistic":
            # Before 1.6 XGBoost wrote default_left as booleans; its reader still takes
            # them.
            old = json.loads(bst.save_raw("json"))
            old["version"] = [1, 5, 2]
            for t in old["learner"]["gradient_booster"]["model"]["trees"]:
                t["default_left"] = [bool(d) for d in t["default_left"]]
            write(os.path.join(testdata, "v1_5_binary_logistic.json"), json.dumps(old, separators=(",", ":")))
            answers.append({"name": "v1_5_binary_logistic", "files": ["v1_5_binary_logistic.json"], "rows": rows,
                            "outputs": outputs})
        if name == "multi_softprob":
            # 3.x writes a multi-class model's intercept as one value per class; softmax
            # takes it as margin as it stands. XGBoost's own margins (base 0.5 each)
            # shifted by the difference give the answers.
            intercept = np.array([0.2, 0.5, 1.1], dtype=np.float32)
            shaped = reshape_xgboost_json(json.loads(bst.save_raw("json")), 3)
            shaped["learner"]["learner_model_param"]["base_score"] = "[2E-1,5E-1,1.1E0]"
            vname = "v3_multi_intercept.json"
            write(os.path.join(testdata, vname), json.dumps(shaped, separators=(",", ":")))
            margin = bst.predict(dtest, output_margin=True).astype(np.float32) - np.float32(0.5) + intercept
            answers.append({"name": "v3_multi_intercept", "files": [vname], "rows": rows,
                            "outputs": {"probabilities": softmax(margin.astype(np.float64))}})

    def clean(v):
        return [clean(e) for e in v] if isinstance(v, (list, np.ndarray)) else (None if np.isnan(v) else float(v))
    lines = ["["]
    for i, a in enumerate(answers):
        entry = {"name": a["name"], "files": a["files"], "rows": clean(a["rows"]),
                 "outputs": {k: clean(np.asarray(v)) for k, v in a["outputs"].items()}}
        lines.append(" " + json.dumps(entry, sort_keys=True) + ("," if i < len(answers) - 1 else ""))
    lines.append("]")
    write(os.path.join(testdata, "answers.json"), "\n".join(lines) + "\n")


def reshape_xgboost_json(model, version):
    """A 1.7.4 model file in the shape XGBoost 2.x (version 2) or 3.x (version 3)
    writes it, by their doc/model.schema and JSON writers: a size_leaf_vector of "1"
    for a tree of scalar leaves, iteration_indptr beside tree_info, and in 3.x
    base_score as a bracketed vector ("[5E-1]")."""
    model["version"] = [2, 1, 4] if version == 2 else [3, 1, 0]
    learner = model["learner"]
    gb = learner["gradient_booster"]
    tree_model = (gb["gbtree"] if gb["name"] == "dart" else gb)["model"]
    param = tree_model["gbtree_model_param"]
    param.pop("size_leaf_vector", None)
    per_iter = int(param["num_parallel_tree"]) * max(1, int(learner["learner_model_param"]["num_class"]))
    n = len(tree_model["trees"])
    tree_model["iteration_indptr"] = list(range(0, n + 1, per_iter))
    for t in tree_model["trees"]:
        t["tree_param"]["size_leaf_vector"] = "1"
    if version == 3:
        lmp = learner["learner_model_param"]
        lmp["base_score"] = "[" + lmp["base_score"] + "]"
    return model


def dump_examples(examples):
    """examples as JSON, one line per list, so a regenerated file diffs readably."""
    lines = ["{"]
    for i, (model, versions) in enumerate(sorted(examples.items())):
        lines.append(f" {json.dumps(model)}: {{")
        for j, (version, fields) in enumerate(sorted(versions.items())):
            lines.append(f"  {json.dumps(version)}: {{")
            keys = sorted(fields)
            for k, key in enumerate(keys):
                comma = "," if k < len(keys) - 1 else ""
                lines.append(f"   {json.dumps(key)}: {json.dumps(fields[key], sort_keys=True)}{comma}")
            lines.append("  }" + ("," if j < len(versions) - 1 else ""))
        lines.append(" }" + ("," if i < len(examples) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=os.path.join(ROOT, "models"), help="model repository to write (default: models/)")
    ap.add_argument("--testdata", default=os.path.join(ROOT, "internal", "repository", "testdata"),
                    help="where to write examples.json (default: internal/repository/testdata/)")
    ap.add_argument("--xgboost-testdata", default=os.path.join(ROOT, "internal", "backend", "xgboost", "testdata"),
                    help="where to write the XGBoost test models (default: internal/backend/xgboost/testdata/)")
    ap.add_argument("--only-xgboost", action="store_true",
                    help="leave out digits and digits-cnn, the slow ones to train (examples.json then lacks it: for trying changes)")
    args = ap.parse_args()
    examples = {}
    iris(args.models, examples)
    diabetes(args.models, examples)
    if not args.only_xgboost:
        digits(args.models, examples)
        digits_cnn(args.models, examples)
    wine(args.models, examples)
    xgboost_models(args.xgboost_testdata)
    write(os.path.join(args.testdata, "examples.json"), dump_examples(examples))
    print(f"wrote {args.models} and {os.path.join(args.testdata, 'examples.json')}", file=sys.stderr)


if __name__ == "__main__":
    main()
