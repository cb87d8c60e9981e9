#!/usr/bin/python3
"""Times XGBoost's own C++ prediction of an XGBoost model, for the xgboost backend's
figures (make bench-http's XGBoost section, docs/benchmarks.md): inplace_predict on a
numpy array, and DMatrix construction plus predict, on 1 row and on 1,024 rows.

Run it with Debian's interpreter, which sees python3-xgboost:

    /usr/bin/python3 tools/bench-xgboost.py [--model models/wine/v1/model.json] [--rows rows.json]

--rows is a JSON list of rows (what the harness sends inferd); without it the rows are
scikit-learn's wine data, repeated to 1,024. It prints one JSON object: the p50 wall
time of each call in seconds, the rounds timed and XGBoost's version and threads.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import xgboost as xgb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def p50(f, rounds):
    for _ in range(min(rounds // 10 + 1, 50)):
        f()  # warm-up: caches, thread pool
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "wine", "v1", "model.json"))
    ap.add_argument("--rows", help="JSON file of the rows to predict (default: the wine data, to 1,024 rows)")
    ap.add_argument("--rounds", type=int, default=2000, help="calls timed per measurement (default 2000)")
    args = ap.parse_args()
    bst = xgb.Booster()
    bst.load_model(args.model)
    if args.rows:
        with open(args.rows) as f:
            rows = np.array(json.load(f), dtype=np.float32)
    else:
        from sklearn.datasets import load_wine
        rows = np.resize(load_wine().data.astype(np.float32), (1024, 13))
    one = rows[:1]
    out = {"xgboost": xgb.__version__, "threads": os.cpu_count(), "rows": len(rows), "rounds": args.rounds}
    out["inplace_predict_1"] = p50(lambda: bst.inplace_predict(one), args.rounds)
    out["inplace_predict_n"] = p50(lambda: bst.inplace_predict(rows), max(args.rounds // 4, 50))
    out["dmatrix_predict_1"] = p50(lambda: bst.predict(xgb.DMatrix(one, feature_names=bst.feature_names)), args.rounds)
    out["dmatrix_predict_n"] = p50(lambda: bst.predict(xgb.DMatrix(rows, feature_names=bst.feature_names)), max(args.rounds // 4, 50))
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
