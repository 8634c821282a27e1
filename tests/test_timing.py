"""The timing protocol, on workloads of known duration (sleeps), with the classic mistakes."""

import time

import pytest
import torch

from autograder.core.correctness import CheckFailed
from autograder.core.timing import compare, measure, time_fn, verdict_for


def sleeper(seconds, first_call_extra=0.0):
    calls = [0]

    def fn(*args):
        calls[0] += 1
        time.sleep(seconds + (first_call_extra if calls[0] == 1 else 0.0))
        return torch.ones(3)

    return fn


def _one_call_s(fn, n: int = 15) -> float:
    """The median of ``n`` calls, each timed alone: what a call really takes on this machine now (a loaded machine
    oversleeps a 3 ms sleep by milliseconds)."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def test_measures_a_known_duration():
    fn = sleeper(0.003)
    timing = measure(fn, [()], blocks=5)
    assert 0.003 <= timing.median_s < 1.5 * max(0.003, _one_call_s(fn)), timing
    assert len(timing.per_call_s) == 5
    assert timing.calls_per_block >= 3  # blocks of at least ~10 ms


def test_the_first_call_is_kept_out_of_the_numbers_but_recorded():
    # Timing the first call is the classic mistake: here it takes 0.3 s more, like a compile.
    timing = measure(sleeper(0.002, first_call_extra=0.3), [()], blocks=5)
    assert timing.median_s < 0.0035
    assert timing.first_call_s > 0.3
    assert timing.warmup_calls >= 3


def test_median_ignores_one_slow_block():
    calls = [0]

    def fn():
        calls[0] += 1
        time.sleep(0.05 if calls[0] == 40 else 0.002)

    assert measure(fn, [()], blocks=21).median_s < 0.003


def test_compare_passes_a_clear_speedup_and_reports_its_spread():
    # Sleeps of several milliseconds: a busy machine wakes a sleeper a millisecond or two late, which would
    # shrink the ratio of 1 ms sleeps past recognition.
    result = compare(sleeper(0.024), sleeper(0.004), [()], gate=1.5, blocks=9, rounds=3)
    assert result.verdict == "pass"
    assert 3.5 < result.speedup < 7
    # The speedup is the ratio of the medians over all blocks; the spread is the range of the rounds' speedups
    # (a ratio of medians need not fall inside that range, but sits near it).
    assert len(result.round_speedups) == 3 and result.speedup_min <= result.speedup_max
    assert result.speedup_min / 1.1 < result.speedup < result.speedup_max * 1.1


def test_compare_fails_a_function_that_is_not_faster():
    result = compare(sleeper(0.002), sleeper(0.002), [()], gate=1.5, blocks=9, rounds=3)
    assert result.verdict == "fail"
    assert 0.7 < result.speedup < 1.3


def test_noisy_rounds_are_inconclusive_never_a_silent_pass_or_fail():
    assert verdict_for([1.6, 1.7, 1.8], 1.5) == "pass"
    assert verdict_for([1.2, 1.3, 1.4], 1.5) == "fail"
    assert verdict_for([1.4, 1.6, 1.7], 1.5) == "inconclusive"


def test_a_measurement_that_straddles_the_gate_is_repeated_then_called_inconclusive():
    # The candidate alternates between 3x and 1.2x from one timed block to the next, so the rounds disagree
    # (milliseconds of late wake-ups on a busy machine leave both sides of the gate where they are).
    blocks_run = [0]

    def next_block(inputs):
        blocks_run[0] += 1

    def alternating():
        time.sleep(0.004 if blocks_run[0] % 2 else 0.010)

    result = compare(sleeper(0.012), alternating, [()], gate=1.5, blocks=9, rounds=3, retries=2, refresh=next_block)
    assert result.verdict == "inconclusive"
    assert result.attempts == 3  # measured three times before giving that answer
    assert result.speedup_min < 1.5 <= result.speedup_max


def test_timed_outputs_are_checked_on_fresh_rotated_inputs():
    inputs = [(torch.full((4,), float(i)),) for i in range(3)]
    seen = []

    def check(out, index):
        seen.append(index)
        torch.testing.assert_close(out, inputs[index][0] * 2)

    compare(lambda x: x * 2, lambda x: x * 2, inputs, gate=0.5, check=check, blocks=30, rounds=3)
    # One random call per block is checked: over 30 blocks every input is seen (miss odds ~1e-5).
    assert len(seen) >= 30 and set(seen) == {0, 1, 2}


def test_a_function_that_cuts_corners_once_timing_starts_is_caught():
    calls = [0]

    def phase_detector(x):
        calls[0] += 1
        return x * 2 if calls[0] <= 5 else torch.zeros_like(x)

    def check(out, index):
        if not torch.equal(out, torch.full((4,), 2.0)):
            raise CheckFailed("output during timing differs")

    with pytest.raises(CheckFailed, match="during timing differs"):
        compare(lambda x: x * 2, phase_detector, [(torch.ones(4),)], gate=1.0, check=check, blocks=6)


def test_cpu_timing_never_touches_cuda():
    time_fn(lambda x: x + 1, torch.ones(10), blocks=3)
    assert not torch.cuda.is_initialized()


def test_patching_the_clock_after_import_does_not_fool_the_timer(monkeypatch):
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    assert measure(sleeper(0.002), [()], blocks=3).median_s > 0.0015
