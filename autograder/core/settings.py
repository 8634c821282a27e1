"""Process-wide torch state a submission could change: the numeric settings (threads, TF32, cuDNN, grad mode...)
and the compiler's configuration (``torch._dynamo.config``, ``torch._inductor.config``).

The submission's process (the worker) snapshots both before it loads the submission, reports every change to
the numeric settings, and puts both back where the trusted side asks. None of it can reach the trusted side's
baseline, which runs in another process.
"""

from __future__ import annotations

import torch

CONFIG_MODULES = ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config")
UNREADABLE = "unreadable: "


# torch 2.9+'s precision API (``torch.backends.fp32_precision`` and its per-backend fields): where a submission
# sets it, reading the legacy ``allow_tf32`` flags raises ("a mix of the legacy and new APIs"), so every read is
# guarded (a refused read is recorded as such) and the new fields are put back last (see restore_fingerprint).
NEW_PRECISION = ("backends.fp32_precision", "backends.cuda.matmul.fp32_precision", "backends.cudnn.fp32_precision",
                 "backends.cudnn.conv.fp32_precision", "backends.cudnn.rnn.fp32_precision",
                 "backends.mkldnn.fp32_precision", "backends.mkldnn.matmul.fp32_precision",
                 "backends.mkldnn.conv.fp32_precision", "backends.mkldnn.rnn.fp32_precision")
LEGACY = {
    "cuda.matmul.allow_tf32": "backends.cuda.matmul.allow_tf32",
    "cuda.matmul.allow_fp16_reduced_precision_reduction": "backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction": "backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
    "cudnn.enabled": "backends.cudnn.enabled",
    "cudnn.benchmark": "backends.cudnn.benchmark",
    "cudnn.deterministic": "backends.cudnn.deterministic",
    "cudnn.allow_tf32": "backends.cudnn.allow_tf32",
}


def _owner(path: str):
    """(object, attribute) of a dotted path under ``torch``, or None where this torch has no such object (the
    attribute itself is not read here: reading a legacy flag can raise)."""
    *names, last = path.split(".")
    obj = torch
    for name in names:
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj, last


def _read(path: str):
    found = _owner(path)
    if found is None:
        return None
    try:
        return getattr(*found)
    except AttributeError:
        return None
    except RuntimeError as err:  # torch refuses a legacy read after the new API was used
        return UNREADABLE + str(err)[:80]


def _readable(value) -> bool:
    return not (isinstance(value, str) and value.startswith(UNREADABLE))


def _write(path: str, value) -> None:
    found = _owner(path)
    if found is not None and value is not None and _readable(value):
        try:
            setattr(*found, value)
        except (AttributeError, RuntimeError, ValueError):
            pass


def fingerprint() -> dict:
    """The global settings that change how fast or how precisely code runs."""
    state = {"num_threads": torch.get_num_threads(), "num_interop_threads": torch.get_num_interop_threads(),
             "float32_matmul_precision": _matmul_precision()}
    state.update({path: value for path in NEW_PRECISION if (value := _read(path)) is not None})
    state.update({key: _read(path) for key, path in LEGACY.items()})
    state.update({"deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
                  "grad_enabled": torch.is_grad_enabled(), "default_dtype": str(torch.get_default_dtype())})
    try:
        from torch._dynamo.eval_frame import _stance
        state["compiler_stance"] = _stance.stance
    except ImportError:  # torch < 2.6 has no stance
        pass
    return state


def _matmul_precision() -> str:
    try:
        return torch.get_float32_matmul_precision()
    except RuntimeError as err:
        return UNREADABLE + str(err)[:80]


def changed(before: dict, after: dict) -> list[str]:
    return [f"{k}: {before[k]!r} -> {after.get(k)!r}" for k in before if after.get(k) != before[k]]


def restore_fingerprint(state: dict) -> None:
    """Put the numeric settings back (the ones a submission can set from Python), each only where it differs:
    the legacy flags, then the new precision API's fields (a legacy write sets some of them too, so they go last
    and make the state exact)."""
    torch.set_num_threads(state["num_threads"])
    value = state["float32_matmul_precision"]
    if value != _matmul_precision() and _readable(value):
        try:
            torch.set_float32_matmul_precision(value)
        except RuntimeError:
            pass
    for key, path in LEGACY.items():
        if _read(path) != state[key]:
            _write(path, state[key])
    for path in NEW_PRECISION:
        if path in state and _read(path) != state[path]:
            _write(path, state[path])
    torch.use_deterministic_algorithms(state["deterministic_algorithms"])
    torch.set_grad_enabled(state["grad_enabled"])
    torch.set_default_dtype(getattr(torch, state["default_dtype"].removeprefix("torch.")))
    if "compiler_stance" in state:
        try:
            from torch._dynamo.eval_frame import _stance
            if _stance.stance != state["compiler_stance"]:
                torch.compiler.set_stance(state["compiler_stance"])
        except Exception:  # set_stance refuses inside a compiled region; nothing is compiling here
            pass


def compiler_config() -> dict:
    """A copy of every compiler configuration module's values."""
    import importlib

    return {name: importlib.import_module(name).get_config_copy() for name in CONFIG_MODULES}


def changed_config(before: dict, after: dict) -> list[str]:
    found = []
    for module, values in before.items():
        now = after.get(module, {})
        for key, value in values.items():
            try:
                same = bool(now.get(key) == value)
            except Exception:  # values that cannot be compared (tensors, odd objects)
                same = now.get(key) is value
            if not same:
                found.append(f"{module.removeprefix('torch.')}.{key}")
    return found


def restore_config(saved: dict) -> None:
    import importlib
    import warnings

    with warnings.catch_warnings():  # setting deprecated keys back to their defaults warns
        warnings.simplefilter("ignore")
        for name, values in saved.items():
            importlib.import_module(name).load_config(values)
