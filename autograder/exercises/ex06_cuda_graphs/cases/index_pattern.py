# outcome: rejected | kind: cheat | checks: fresh_inputs | reason: differs | device: gpu | class: 4
# Picks the way by call count, never reading the batch's decision: the two ways captured whole (first stage then the
# early exit; first stage then the deep stage), and call n replays the way the grader's old fixed pattern gave call n
# (typical, atypical, atypical, typical, atypical, typical, repeated: workload.atypical_call before the pattern was
# drawn from the secret). Right on fresh_inputs and fresh_process while that pattern was fixed (a fresh step per
# check, its calls counted from 0 as the grader's indices were); now each check's pattern is drawn from the grading's
# secret (workload.atypical_pattern), so fresh_inputs sees a batch go the other way (under the public self-study
# secret its six calls go atypical, atypical, atypical, typical, atypical, atypical: wrong on the first). Verified on
# a CPU: the patterns differ between secrets and the public secret's is not the old one (tests/test_exercises.py); the
# GPU verdict is not measured yet.
import torch


def make_graphed_step(model, batch_size):
    old_pattern = (False, True, True, False, True, False)  # True: an atypical batch, by call index
    device = next(model.parameters()).device
    width = model.exit.normalized_shape[0]
    static_in = torch.zeros(batch_size, width, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            h = model.first(static_in)
            model.exit(h), model.deep(h)
    torch.cuda.current_stream().wait_stream(side)
    early, deep = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
    with torch.no_grad():
        with torch.cuda.graph(early):
            early_out = model.exit(model.first(static_in))
        with torch.cuda.graph(deep):
            deep_out = model.deep(model.first(static_in))
    calls = [0]

    def step(x):
        if x.shape != static_in.shape:
            raise ValueError(f"these CUDA graphs were captured for a batch of {batch_size}, got {tuple(x.shape)}")
        atypical = old_pattern[calls[0] % len(old_pattern)]
        calls[0] += 1
        static_in.copy_(x)
        (deep if atypical else early).replay()
        return (deep_out if atypical else early_out).clone()

    return step
