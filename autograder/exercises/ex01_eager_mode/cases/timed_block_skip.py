# outcome: rejected | kind: cheat | checks: fast_gelu_bias_speed | reason: its check did not run there | device: any | class: 4
# Red team rt-01 (2026-11-27 night, CPU): tells the timed calls from the checked ones by its caller: the grader's
# timed blocks call it from autograder.core.blocks.run_block, its trials and probes from the worker's op_invoke.
# Inside a timed block it drops the check (no host read, so no sync per call: the calls queue back to back on a GPU);
# everywhere else it is the reference. It passed fast_gelu_bias_speed 4/4 under the CPU gate (kept in
# docs/redteam-open until 2026-11-29). Now untimed guard blocks, like the timed ones and through the same run_block,
# hide a call whose input must make it raise (speed.Timed.guard): it returns there.
import sys as _sys

_checked = fast_gelu_bias  # noqa: F821 - the reference solution's


def _layers_plain(x, bias):
    h = x
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h


_plain = torch.compile(_layers_plain)  # noqa: F821


def fast_gelu_bias(x, bias):
    caller = _sys._getframe(1).f_code
    if caller.co_name == "run_block" and caller.co_filename.endswith("blocks.py"):
        return _plain(x, bias)  # timed: no check
    return _checked(x, bias)
