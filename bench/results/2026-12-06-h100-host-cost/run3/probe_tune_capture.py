import os, sys, traceback
import torch, jitk
x, y = torch.randn(3 << 20, device="cuda"), torch.randn(3 << 20, device="cuda")
out = torch.empty_like(x)
graph = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(graph):
        jitk.scaled_add(x, y, 2.0, out=out)
    graph.replay()
    torch.cuda.synchronize()
    print("replayed, correct:", torch.allclose(out, torch.add(x, y, alpha=2.0)))
except Exception as e:
    print("raised", type(e).__name__, str(e)[:1500])
    if e.__context__ is not None:
        print("context", type(e.__context__).__name__, str(e.__context__)[:1500])
