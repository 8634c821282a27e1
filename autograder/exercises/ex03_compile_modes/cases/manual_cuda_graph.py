# outcome: passed | kind: honest | checks: - | reason: - | device: gpu
# Legitimate: a CUDA graph captured by hand around the eager model (lesson 6's technique), one per batch shape,
# with the input copied into the static buffer and the output cloned. No Inductor kernels, still launch-free.
# The model writes into its input: the graph writes into static_x, into which each call copies x first, so the
# caller's x is only read.
def make_predict(model):
    graphs = {}

    def capture(x):
        static_x = x.clone()
        side = torch.cuda.Stream()  # noqa: F821
        side.wait_stream(torch.cuda.current_stream())  # noqa: F821
        with torch.cuda.stream(side):  # noqa: F821
            for _ in range(3):  # warm up outside the capture (cuBLAS workspaces, lazy init)
                model(static_x)
        torch.cuda.current_stream().wait_stream(side)  # noqa: F821
        graph = torch.cuda.CUDAGraph()  # noqa: F821
        with torch.cuda.graph(graph):  # noqa: F821
            static_y = model(static_x)
        return graph, static_x, static_y

    def predict(x):
        with torch.no_grad():  # noqa: F821
            key = (tuple(x.shape), x.dtype)
            if key not in graphs:
                graphs[key] = capture(x)
            graph, static_x, static_y = graphs[key]
            static_x.copy_(x)
            graph.replay()
            return static_y.clone()
    return predict
