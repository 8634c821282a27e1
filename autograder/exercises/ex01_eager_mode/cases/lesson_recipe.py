# outcome: rejected | kind: wrong | checks: - | gpu_checks: fast_gelu_bias_speed | reason: too slow | note: 0 graph(s) | device: any
# Known wrong (issue 39 item 2): lesson 1's cell 5 copied as it is, torch.compile of the given function. Its check
# after every layer (`if not torch.isfinite(h).all():`, a value read on the host) is a graph break inside a loop, and
# Dynamo then gives up on the whole frame: 0 graphs, the function runs eagerly (about 1.0x; FACTS.md: a loop with an
# `.item()` branch ran at 0.98x on an H200 with torch 2.11). Its results and its check are the eager function's, so
# the correctness check passes; the speed check rejects it on a GPU, and on a CPU the diagnosis says why.
# Verified on a CPU (torch 2.13): 0 graphs and one graph break, as the worker's note says (tests/test_exercises.py).
# GPU (H200, 2026-11-27 night, torch 2.11): rejected 3/3 at 0.89x-0.96x.
fast_gelu_bias = torch.compile(checked_gelu_bias)  # noqa: F821
