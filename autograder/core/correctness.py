"""Comparing outputs: exact type, dtype, shape, device, finite values, calibrated tolerance; and the secret
seeds every input is drawn from.

Every failure raises :class:`CheckFailed` with a message that says what is wrong; nothing prints
"failed" and carries on (papermill and nbgrader would count that as a pass). These run on the trusted side,
on outputs read out of its own memory.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import torch

from autograder.core.protocol import SECRET_ENV, CheckFailed, Tolerance

_isclose, _isfinite, _equal, _Tensor = torch.isclose, torch.isfinite, torch.equal, torch.Tensor

PUBLIC_SECRET = "public-self-study-seed"
HIDDEN = "|hidden"  # appended to the secret for nbgrader's hidden tests: a second, independent input stream


def grading_secret() -> str:
    """The instructor's secret: the environment variable, or the file ``COURSE_GRADING_SECRET_FILE`` names (a
    0600 file, so that no environment that runs student code needs it), or the public self-study one."""
    if os.environ.get(SECRET_ENV):
        return os.environ[SECRET_ENV]
    if os.environ.get(SECRET_ENV + "_FILE"):
        return Path(os.environ[SECRET_ENV + "_FILE"]).read_text().strip() or PUBLIC_SECRET
    return PUBLIC_SECRET


def seed_for(exercise: str, purpose: str, index: int, secret: str) -> int:
    """A 63-bit seed derived from the secret: without the secret, hidden inputs cannot be predicted."""
    text = f"{secret}|{exercise}|{purpose}|{index}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def generator(exercise: str, purpose: str, index: int, secret: str,
              device: torch.device | str = "cpu") -> torch.Generator:
    """A generator on ``device`` seeded by :func:`seed_for` (drawing on the GPU itself is fast at full size)."""
    return torch.Generator(device=device).manual_seed(seed_for(exercise, purpose, index, secret))


def _describe(t) -> str:
    if isinstance(t, _Tensor):
        return f"{type(t).__name__}(shape={tuple(t.shape)}, dtype={t.dtype}, device={t.device})"
    return f"{type(t).__name__} {t!r}"[:120]


def check_tensor(out, expected: torch.Tensor, tol: Tolerance, what: str = "output") -> None:
    """Raise CheckFailed unless ``out`` is a plain tensor like ``expected`` and close to it."""
    if type(out) is not _Tensor:
        raise CheckFailed(f"{what} must be a torch.Tensor, got {_describe(out)}",
                          "return the tensor itself (not a subclass, a list, a number or None)")
    for attr in ("dtype", "shape", "device"):
        if getattr(out, attr) != getattr(expected, attr):
            raise CheckFailed(f"{what} has {attr} {getattr(out, attr)}, expected {getattr(expected, attr)}",
                              "compute in the input's precision and on its device; do not cast or move the result")
    out_d, exp_d = out.detach(), expected.detach()
    finite = _isfinite(exp_d)
    if not bool(_equal(_isfinite(out_d), finite)):
        extra = int((~_isfinite(out_d) & finite).sum())
        if extra:
            raise CheckFailed(f"{what} has {extra} non-finite values (NaN or inf) where the reference is finite",
                              "look for uninitialised memory (torch.empty) or a division by zero")
        raise CheckFailed(f"{what} is finite at {int((_isfinite(out_d) & ~finite).sum())} places where the reference "
                          "holds NaN or inf", "the reference's non-finite values are part of its result: do not "
                          "replace or clean them (nan_to_num, clamp)")
    close = _isclose(out_d, exp_d, rtol=tol.rtol, atol=tol.atol) | ~finite
    if not bool(close.all()):
        diff = (out_d.double() - exp_d.double()).abs().masked_fill(~finite, 0)
        worst = int(diff.argmax())
        idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(worst), out_d.shape)) if out_d.dim() else ()
        n_bad = int((~close).sum())
        raise CheckFailed(
            f"{what} differs from the reference at {n_bad} of {out_d.numel()} elements; worst at index {idx}: "
            f"got {out_d.reshape(-1)[worst].item():.6g}, expected {exp_d.reshape(-1)[worst].item():.6g} "
            f"(rtol={tol.rtol:g}, atol={tol.atol:g})",
            "compare with the reference function on a small input; a stale or lower-precision result fails here")


def check_outputs(out, expected, tol: Tolerance, what: str = "output") -> None:
    """Compare nested outputs (tensor, tuple/list of tensors, or plain numbers)."""
    if isinstance(expected, _Tensor):
        check_tensor(out, expected, tol, what)
    elif isinstance(expected, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(expected):
            raise CheckFailed(f"{what} must be a sequence of {len(expected)} items, got {_describe(out)}")
        for i, (o, e) in enumerate(zip(out, expected, strict=True)):
            check_outputs(o, e, tol, f"{what}[{i}]")
    elif isinstance(expected, float):
        if not isinstance(out, (int, float)) or abs(out - expected) > tol.atol + tol.rtol * abs(expected):
            raise CheckFailed(f"{what} is {out!r}, expected {expected:.6g}")
    elif out != expected:
        raise CheckFailed(f"{what} is {out!r}, expected {expected!r}")


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors hold the same bits (shape and dtype too): for a check that inputs are as written, where
    torch.equal would call an unchanged NaN changed."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        width = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        a, b = a.contiguous().view(width), b.contiguous().view(width)
    return bool(_equal(a, b))
