#!/usr/bin/python3
"""Writes the XGBoost files of modelfile's tests: three tiny models (two trees of
depth 2), one per kind of objective, as XGBoost saves them. Run with Debian's
python3-xgboost: ./build.py in this directory."""
import numpy as np
import xgboost as xgb

rng = np.random.default_rng(7)
x = rng.normal(size=(64, 4)).astype(np.float32)
params = {"max_depth": 2, "eta": 0.5, "nthread": 1, "seed": 7}


def train(objective, y, names=None, **extra):
    d = xgb.DMatrix(x, label=y, feature_names=names)
    return xgb.train({**params, "objective": objective, **extra}, d, num_boost_round=2)


names = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
b = train("binary:logistic", (x[:, 0] > 0).astype(np.float32), names)
b.save_model("binary.json")
b.save_model("binary.ubj")
train("multi:softprob", (x[:, 1] > 0).astype(np.float32) + (x[:, 2] > 0), num_class=3).save_model("multiclass.json")
train("reg:squarederror", x[:, 0] * 2 + x[:, 3]).save_model("regression.json")
