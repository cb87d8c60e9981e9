#!/usr/bin/python3
"""Writes sequence.onnx for model init's tests: a model whose input has a dimension of
any size besides the batch, [batch, seq] float32 to a ReduceSum over seq, so that a
model.yaml of backend and artifact alone does not load. Run with Debian's python3-onnx:
./build_onnx.py in this directory."""
import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "seq"])
y = helper.make_tensor_value_info("total", TensorProto.FLOAT, ["batch", 1])
node = helper.make_node("ReduceSum", ["tokens"], ["total"], keepdims=1, axes=[1])
graph = helper.make_graph([node], "sequence", [x], [y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="build_onnx.py")
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, "sequence.onnx")
