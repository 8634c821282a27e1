"""gpu-check's bookkeeping (the GPU runs themselves happen in `make gpu-check` on a CUDA machine)."""

from pathlib import Path

import pytest

from autograder.core.protocol import CheckResult, Report
from autograder.tools.gpu_check import RawRuns, summarise


def _report(speedup: float, ok: bool) -> Report:
    status = "passed" if ok else "failed"
    speed = CheckResult("s", "speed", "speed", 4.0 if ok else 0.0, 4, status, "measured", "",
                        {"speedup": speedup, "baseline_s": 2e-3, "candidate_s": 2e-3 / speedup,
                         "candidate_spread": 0.01})
    return Report("01_eager_mode", [speed], {"gpu": "test"}, 1.0, False)


def test_accumulated_runs_are_summarised_together_and_a_fresh_start_forgets_them(tmp_path):
    first = RawRuns(tmp_path, accumulate=False)
    path, reports = first.start("01_eager_mode", "reference")
    for s in (2.0, 3.0):
        RawRuns.add(path, reports, _report(s, True))
    path, reports = RawRuns(tmp_path, accumulate=True).start("01_eager_mode", "reference")
    assert len(reports) == 2  # read back from the JSON lines
    RawRuns.add(path, reports, _report(4.0, False))
    summary = summarise(reports)
    assert (summary["runs"], summary["passed"], summary["speedup_median"]) == (3, 2, 3.0)
    assert (summary["speedup_min"], summary["speedup_max"]) == (2.0, 4.0)
    _, fresh = RawRuns(tmp_path, accumulate=False).start("01_eager_mode", "reference")
    assert fresh == [] and path.read_text() == ""


def test_rebuild_recomputes_the_tables_from_the_recorded_runs_without_a_gpu(tmp_path):
    import json

    from autograder.tools.gpu_check import main

    (tmp_path / "gpu-results.json").write_text(json.dumps(
        {"gpu": "test", "torch": "x", "date": "d", "exercises": {}, "redteam_gpu": {}}))
    path, reports = RawRuns(tmp_path, accumulate=False).start("01_eager_mode", "reference")
    for s in (5.0, 7.0):
        RawRuns.add(path, reports, _report(s, True))
    assert main(["--rebuild", "--out", str(tmp_path)]) == 0
    reference = json.loads((tmp_path / "gpu-results.json").read_text())["exercises"]["01_eager_mode"]["reference"]
    assert (reference["runs"], reference["passed"], reference["speedup_median"]) == (2, 2, 6.0)
    assert "6.00x (5.00..7.00)" in (tmp_path / "gpu-results.md").read_text()


def test_a_rebuild_drops_the_rows_of_cases_whose_runs_moved_to_a_before_folder(tmp_path):
    """An exercise redesigned: its old runs go to gpu-runs/before-<ex>-transfer/ and their rows leave the tables,
    unless the case was graded again on the new design (2026-11-29: 05's old rows stayed after a rebuild)."""
    import json

    from autograder.tools.gpu_check import main

    old = {"runs": 20, "passed": 0, "kind": "cheat", "outcome": "rejected"}
    (tmp_path / "gpu-results.json").write_text(json.dumps(
        {"gpu": "test", "torch": "x", "date": "d", "exercises": {"05_dynamic_shapes": {"reference": None, "wrong": {
            "naive": dict(old, kind="wrong")}}},
         "redteam_gpu": {"05_dynamic_shapes/stance_inside": "rejected", "05_dynamic_shapes/shrink_model": "rejected"},
         "cases": {"05_dynamic_shapes/stance_inside": old, "05_dynamic_shapes/shrink_model": old,
                   "05_dynamic_shapes/naive": dict(old, kind="wrong")}}))
    before = tmp_path / "gpu-runs" / "before-05-transfer"
    before.mkdir(parents=True)
    for name in ("stance_inside", "naive"):
        (before / f"05_dynamic_shapes.{name}.jsonl").write_text("")
    assert main(["--rebuild", "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "gpu-results.json").read_text())
    assert set(results["redteam_gpu"]) == set(results["cases"]) == {"05_dynamic_shapes/shrink_model"}
    assert results["exercises"]["05_dynamic_shapes"]["wrong"] == {}


def test_a_rebuild_drops_the_reference_row_of_a_redesigned_exercise_until_its_new_reference_is_graded(tmp_path):
    """2026-11-30: exercise 02 (b) redesigned, its 39 reference gradings moved to gpu-runs/before-02-transfer/, and
    the rebuild kept their row (2.46x, 39/39) as if they were the new design's."""
    import json

    from autograder.tools.gpu_check import main

    row = {"runs": 39, "passed": 39, "gpu": "test", "speedup_median": 2.46, "speedup_min": 2.04, "speedup_max": 3.06,
           "grade_s": 27.5, "verdicts": {}}
    (tmp_path / "gpu-results.json").write_text(json.dumps(
        {"gpu": "test", "torch": "x", "date": "d", "redteam_gpu": {}, "cases": {},
         "exercises": {"02_compile_pipeline": {"reference": row, "wrong": {}},
                       "05_dynamic_shapes": {"reference": dict(row, runs=20, passed=20), "wrong": {}}}}))
    before = tmp_path / "gpu-runs" / "before-02-transfer"
    before.mkdir(parents=True)
    (before / "02_compile_pipeline.reference.jsonl").write_text("")
    assert main(["--rebuild", "--out", str(tmp_path)]) == 0
    exercises = json.loads((tmp_path / "gpu-results.json").read_text())["exercises"]
    assert exercises["02_compile_pipeline"]["reference"] is None
    assert exercises["05_dynamic_shapes"]["reference"]["runs"] == 20  # nothing moved: its row stays


def test_a_sitting_on_another_gpu_keeps_every_earlier_row(tmp_path):
    import json

    from autograder.tools.gpu_check import start_results

    earlier = {"gpu": "NVIDIA H100 / NVIDIA H200", "torch": "2.11", "date": "d", "notes": ["how"],
               "exercises": {"01_eager_mode": {"reference": {"runs": 20, "gpu": "NVIDIA H100"}, "wrong": {}}},
               "redteam_gpu": {"01_eager_mode/memo_id": "rejected"}, "cases": {"01_eager_mode/memo_id": {}},
               "classroom": {"how": "x"}}
    (tmp_path / "gpu-results.json").write_text(json.dumps(earlier))
    results = start_results(tmp_path)  # this machine has no GPU at all: still nothing of the earlier sittings goes
    assert {k: results[k] for k in earlier if k != "date"} == {k: v for k, v in earlier.items() if k != "date"}


def test_a_recorded_classroom_run_is_kept_and_shown_by_a_rebuild(tmp_path):
    import json

    from autograder.tools.gpu_check import main

    classroom = {"how": "make autograde on a test GPU", "timing": "12 s per notebook",
                 "scores": [{"student": "alice", "assignment": "01_eager_mode", "score": 12.0, "max": 12.0,
                             "expected": "full marks"}],
                 "submissions": [{"run": "A", "student": "alice", "assignment": "01_eager_mode", "notebook_s": 12.0,
                                  "grading_s": 7.5},
                                 {"run": "A", "student": "alice", "assignment": "02_compile_pipeline",
                                  "notebook_s": 20.0, "grading_s": None}]}
    (tmp_path / "gpu-results.json").write_text(json.dumps(
        {"gpu": "test", "torch": "x", "date": "d", "exercises": {}, "redteam_gpu": {}, "classroom": classroom}))
    assert main(["--rebuild", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "gpu-results.md").read_text()
    assert "| alice | 01_eager_mode | 12/12 | full marks |" in text and "12 s per notebook" in text
    assert "| A | alice | 12.0 (7.5) | 20.0 | 32 |" in text  # seconds per notebook (grading's share), total
    assert json.loads((tmp_path / "gpu-results.json").read_text())["classroom"] == classroom


def test_cases_graded_on_a_clock_are_the_ones_graded_one_at_a_time():
    from autograder.tools import cases
    from autograder.tools.gpu_check import timed

    by_name = {f"{c.exercise}/{c.name}": c for c in cases.cases(device="gpu")}
    # a speed gate, the learner's timer against the judge's clock, an honest case (every check, speed included)
    assert timed(by_name["05_dynamic_shapes/stance_eager_long"])
    assert timed(by_name["01_eager_mode/benchmark_times_gaps"])
    assert timed(by_name["03_compile_modes/graphed_callables"])
    # compile_budget reads the speed check's measurement: the speed check is graded with it
    assert timed(by_name["03_compile_modes/deferred_compile"])
    # rejected on values alone: graded several at a time
    assert not timed(by_name["06_cuda_graphs/no_copy"])
    assert not timed(by_name["06_cuda_graphs/no_batch_check"])
    # a missing clone is now rejected by the speed check's kept outputs (the read-back outside timing is a note):
    # graded one at a time, as every speed check is
    assert timed(by_name["03_compile_modes/no_clone"])


def test_several_gpus_share_the_runs_the_cases_and_the_cores_without_overlap():
    from types import SimpleNamespace

    from autograder.tools.gpu_check import child_argv, selected_cases, split_cases, split_runs, timed
    from autograder.tools.slots import slots

    assert split_runs(20, 3) == [7, 7, 6] and split_runs(1, 2) == [1, 0]
    shares = [s["cores"] for s in slots(2, list(range(33)), gpus=2, siblings=lambda cpu: {cpu})]
    assert shares == [list(range(16)), list(range(16, 32))]  # a spare core stays idle
    cases = selected_cases(["01_eager_mode", "03_compile_modes"], gpu_specific=True)
    shares = split_cases(cases, 2)
    assert sorted(shares[0] + shares[1]) == sorted(f"{c.exercise}/{c.name}" for c in cases)
    n_timed = [sum(timed(c) for c in cases if f"{c.exercise}/{c.name}" in share) for share in shares]
    assert abs(n_timed[0] - n_timed[1]) <= 1  # the slow, one-at-a-time cases are dealt evenly
    args = SimpleNamespace(part=None, case_runs=1, jobs=3, exercise=["03_compile_modes"], deadline=0)
    argv = child_argv(args, 0, ["03_compile_modes/eager"], Path("/o"))
    assert argv == ["--out", "/o", "--runs", "0", "--case-runs", "1", "--jobs", "3", "--exercise",
                    "03_compile_modes", "--part", "cases", "--case", "03_compile_modes/eager"]
    assert child_argv(args, 0, [], Path("/o")) == []  # nothing to grade on that GPU: no process at all


def test_runs_recorded_on_several_gpus_merge_into_one_file_per_submission(tmp_path):
    from autograder.tools.gpu_check import merge_runs

    sources = []
    for i, speedups in enumerate([(2.0, 3.0), (4.0,)]):
        path, reports = RawRuns(tmp_path / f"gpu{i}", accumulate=False).start("01_eager_mode", "reference")
        for s in speedups:
            RawRuns.add(path, reports, _report(s, True))
        (tmp_path / f"gpu{i}" / "gpu-check.log").write_text(f"log of gpu {i}\n")
        sources.append(tmp_path / f"gpu{i}")
    out = tmp_path / "out"
    old, _ = RawRuns(out, accumulate=False).start("01_eager_mode", "reference")
    RawRuns.add(old, [], _report(9.0, True))  # an earlier sitting's run: replaced, not kept
    merge_runs(sources, out, accumulate=False)
    _, merged = RawRuns(out, accumulate=True).start("01_eager_mode", "reference")
    assert [_speed_of(r) for r in merged] == [2.0, 3.0, 4.0]
    merge_runs(sources[1:], out, accumulate=True)
    _, again = RawRuns(out, accumulate=True).start("01_eager_mode", "reference")
    assert [_speed_of(r) for r in again] == [2.0, 3.0, 4.0, 4.0]
    assert "log of gpu 0" in (out / "gpu-check.log").read_text()


def _speed_of(report: Report) -> float:
    return report.results[0].details["speedup"]


def test_a_slot_names_its_gpu_as_the_hosts_visible_devices_name_it(monkeypatch):
    """Slots are shared by make autograde WORKERS=N and gpu_check --gpus N: slot i gets the i-th GPU the caller
    may use (not physical GPU i) and compile and OpenMP threads capped to its cores."""
    from autograder.tools.slots import slots

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    two = slots(2, list(range(8)), gpus=2, siblings=lambda cpu: {cpu})
    assert [s["env"]["CUDA_VISIBLE_DEVICES"] for s in two] == ["2", "3"]
    assert all(s["env"]["OMP_NUM_THREADS"] == s["env"]["TORCHINDUCTOR_COMPILE_THREADS"] == "4" for s in two)
    assert "CUDA_VISIBLE_DEVICES" not in slots(4, list(range(8)), gpus=2, siblings=lambda cpu: {cpu})[0]["env"]


def test_a_deadline_starts_no_grading_that_would_not_end_in_time(tmp_path, monkeypatch):
    """On a host that caps a command's time, every grading started is one that ends: the next is expected to take
    as long as the longest of its kind so far, and is not started when less is left (a grading cut in half by a
    kill was lost with everything after it). Gradings here are sleeps of known length."""
    import time
    from types import SimpleNamespace

    from autograder.tools import gpu_check

    calls = []

    def grading(fn, exercise_id):  # a reference grading of 0.3 s
        calls.append(time.perf_counter())
        time.sleep(0.3)
        return _report(3.0, True).to_json()

    monkeypatch.setattr(gpu_check, "in_fresh_judge", grading)
    lines = []
    budget = gpu_check.Budget(1.0, first_s=0.3)
    gpu_check.check_reference("01_eager_mode", 10, lines.append, gpu_check.RawRuns(tmp_path, False), budget)
    recorded = (tmp_path / "gpu-runs" / "01_eager_mode.reference.jsonl").read_text().splitlines()
    assert len(calls) == len(recorded) == 3  # 0.9 s of gradings; a fourth would end after the 1 s deadline
    assert budget.left() > 0 and "stopped after 3 of 10" in lines[-1]
    args = SimpleNamespace(part=["reference"], case_runs=1, jobs=1, exercise=None, deadline=300)
    argv = gpu_check.child_argv(args, 2, [], Path("/o"))
    assert argv[argv.index("--deadline") + 1] == f"{300 - gpu_check.CHILD_MARGIN_S:g}"  # the child stops itself first


def test_until_grades_each_case_up_to_n_runs_of_this_gpu_and_a_cut_short_sitting_keeps_what_ended(tmp_path,
                                                                                                   monkeypatch):
    """`--until N` (how the 20 gradings of every wrong approach accumulate over sittings): a file already holding
    runs of this GPU gets only what it lacks; a file of another GPU model starts over (a file keeps one GPU's
    runs); cases graded at once go in rounds, each written as it ends, so a deadline loses no finished grading.
    Gradings here are sleeps of known length, on no GPU."""
    import time

    from autograder.core.protocol import CheckResult
    from autograder.tools import gpu_check

    untimed, timed_case = "06_cuda_graphs/no_copy", "01_eager_mode/eager"
    cases = {f"{c.exercise}/{c.name}": c for c in gpu_check.selected_cases(["01_eager_mode", "06_cuda_graphs"],
                                                                          kinds=["wrong"])}
    assert {untimed, timed_case} <= set(cases) and all(c.kind == "wrong" for c in cases.values())
    assert gpu_check.timed(cases[timed_case]) and not gpu_check.timed(cases[untimed])

    def grading(fn, exercise_id, path, only, alone):  # 0.2 s, failing the checks it was asked for
        time.sleep(0.2)
        return Report(exercise_id, [CheckResult(c, c, "correctness", 0.0, 1, "failed", "no") for c in only],
                      {"gpu": "GPU A"}, 0.2, False).to_json()

    monkeypatch.setattr(gpu_check, "in_fresh_judge", grading)
    raw = RawRuns(tmp_path, accumulate=True)
    path, reports = raw.start("06_cuda_graphs", "no_copy")
    for _ in range(2):
        RawRuns.add(path, reports, Report("06_cuda_graphs", [], {"gpu": "GPU A"}, 1.0, False))
    path, reports = raw.start("01_eager_mode", "eager")
    RawRuns.add(path, reports, Report("01_eager_mode", [], {"gpu": "GPU B"}, 1.0, False))
    lines = []
    gpu_check.check_cases(["01_eager_mode", "06_cuda_graphs"], 99, 2, lines.append, raw, names=[untimed, timed_case],
                          until=4, gpu="GPU A")
    count = {name: len(RawRuns.read(tmp_path / "gpu-runs" / f"{name.replace('/', '.')}.jsonl")) for name in cases
             if name in (untimed, timed_case)}
    assert count == {untimed: 4, timed_case: 4}  # 2 more; 4 from the start (its GPU B run is gone)
    assert any("of another GPU (GPU B)" in line for line in lines)
    for name in (untimed, timed_case):
        recorded = RawRuns.read(tmp_path / "gpu-runs" / f"{name.replace('/', '.')}.jsonl")
        assert {r.environment["gpu"] for r in recorded} == {"GPU A"}

    # A deadline in the middle of the rounds: each round is 0.2 s (two cases, two at a time).
    (tmp_path / "gpu-runs" / "06_cuda_graphs.no_copy.jsonl").unlink()
    budget = gpu_check.Budget(0.7, first_s=0.2)
    gpu_check.check_cases(["06_cuda_graphs"], 99, 2, lines.append, raw, names=[untimed], budget=budget, until=10,
                          gpu="GPU A")
    assert len(RawRuns.read(tmp_path / "gpu-runs" / "06_cuda_graphs.no_copy.jsonl")) == 3  # a 4th would end late
    assert "not enough for a round" in lines[-2]  # then the case's line: its 3 runs


def test_until_over_several_gpus_deals_whole_cases_by_the_work_they_lack_and_merges_each_file_back_whole(
        tmp_path, monkeypatch):
    """`--until N --gpus K` (the 20 gradings of every wrong approach on a host of several GPUs): each case goes to
    one GPU (its file is one child's to write), the GPUs get about equal seconds of gradings they lack, a child is
    given the runs already recorded so it grades only what they lack, and the merge writes each file back whole
    (kept runs and new ones, never the kept ones twice). Gradings are sleeps, on no GPU."""
    from types import SimpleNamespace

    from autograder.tools import gpu_check

    assert gpu_check.split_by_work({"a": 10, "b": 6, "c": 5, "d": 1}, 2) == [["a", "d"], ["b", "c"]]
    out = tmp_path / "benchmarks"
    raw = RawRuns(out, accumulate=True)
    names = {"half": "06_cuda_graphs/no_copy", "other_gpu": "06_cuda_graphs/no_warmup",
             "done": "06_cuda_graphs/static_output"}
    cases = {k: c for c in gpu_check.selected_cases(["06_cuda_graphs"], kinds=["wrong"])
             for k, v in names.items() if f"{c.exercise}/{c.name}" == v}
    for key, gpu, n in (("half", "GPU A", 2), ("other_gpu", "GPU B", 1), ("done", "GPU A", 4)):
        path, reports = raw.start("06_cuda_graphs", cases[key].name)
        for _ in range(n):
            RawRuns.add(path, reports, Report("06_cuda_graphs", [], {"gpu": gpu}, 2.0, False))
    work = gpu_check.until_work(list(cases.values()), raw, 4, "GPU A")
    s = gpu_check.UNTIL_START_S
    assert work == {names["half"]: 2 * (2.0 + s), names["other_gpu"]: 4 * (30.0 + s)}  # "done" lacks nothing
    shares = gpu_check.split_by_work(work, 2)
    assert shares == [[names["other_gpu"]], [names["half"]]]
    args = SimpleNamespace(part=["cases"], case_runs=20, jobs=2, exercise=None, deadline=0, until=4)
    assert gpu_check.child_argv(args, 0, shares[1], Path("/o"))[8:10] == ["--until", "4"]
    with pytest.raises(SystemExit):  # a reference's file is not seeded: merged whole it would lose earlier runs
        gpu_check.main(["--until", "20", "--gpus", "2", "--out", str(tmp_path / "refused")])

    def grading(fn, exercise_id, path, only, alone):
        return Report(exercise_id, [CheckResult(c, c, "correctness", 0.0, 1, "failed", "no") for c in only],
                      {"gpu": "GPU A"}, 0.1, False).to_json()

    monkeypatch.setattr(gpu_check, "in_fresh_judge", grading)
    sources = []
    for i, share in enumerate(shares):  # what each child does with the --out it was given
        child = tmp_path / f"gpu{i}"
        gpu_check.seed_runs(out, child, share)
        gpu_check.check_cases(["06_cuda_graphs"], 20, 2, lambda line: None, RawRuns(child, accumulate=False),
                              names=share, until=4, gpu="GPU A")
        sources.append(child)
    gpu_check.merge_runs(sources, out, accumulate=False)
    for key, seconds in (("half", [2.0, 2.0, 0.1, 0.1]), ("other_gpu", [0.1] * 4), ("done", [2.0] * 4)):
        recorded = RawRuns.read(raw.path("06_cuda_graphs", cases[key].name))
        assert [r.seconds for r in recorded] == seconds, key
        assert {r.environment["gpu"] for r in recorded} == {"GPU A"}


def test_an_unsandboxed_case_grading_writes_a_copy_of_the_worker_cache_never_the_shared_one(tmp_path, monkeypatch):
    from autograder.core.grading import worker_cache
    from autograder.tools.gpu_check import private_worker_cache

    shared = tmp_path / "shared"
    (shared / "inductor").mkdir(parents=True)
    (shared / "inductor" / "warm-entry").write_text("the course's own compile")
    monkeypatch.setenv("COURSE_SANDBOX", "none")
    monkeypatch.setenv("COURSE_WORKER_CACHE", str(shared))
    with private_worker_cache():
        copy = worker_cache()
        assert copy != shared
        assert (copy / "inductor" / "warm-entry").read_text() == "the course's own compile"  # starts warm
        (copy / "inductor" / "autotune-results-mlp").write_text("a marker one grading leaves")
    assert worker_cache() == shared
    assert not (shared / "inductor" / "autotune-results-mlp").exists()  # the next grading starts without it
    assert not copy.exists()


def test_a_case_that_went_wrong_says_how_a_hole_from_a_reason_or_an_older_run():
    """A cheat whose targeted check passed is a hole; one rejected with another message, or a run of an older grader
    that graded fewer checks, is not: the results table says which (rows read as holes that were neither)."""
    from autograder.tools.gpu_check import case_verdict

    base = {"outcome": "rejected", "runs": 3, "as_promised": 1}
    assert case_verdict({**base, "otherwise": {"slipped through": 1, "rejected for another reason": 1,
                                               "not all its checks graded": 0}}) == \
        "WRONG: rejected only 1/3 (1 slipped through, 1 rejected for another reason)"
    assert case_verdict({**base, "as_promised": 3}) == "rejected 3/3"
    assert case_verdict({"outcome": "passed", "runs": 1, "as_promised": 0,
                         "otherwise": {"not all its checks graded": 1}}) == \
        "WRONG: passed only 0/1 (1 not all its checks graded)"


def test_how_a_case_went_wrong_is_read_from_the_start_of_the_verdict_never_from_a_quoted_message():
    """cases.verdict's explanations each start their own way; the submission's own message, quoted after that start,
    may say anything ("passed a", "graded") without moving a grading to another column."""
    from autograder.tools.gpu_check import went_wrong

    assert went_wrong("speed passed a cheat case") == "slipped through"
    assert went_wrong("wrongly failed: [FAIL] speed (0/4): nothing was graded") == "wrongly failed"
    assert went_wrong("rejected, but not for the expected reason 'differs': speed passed a cheat case") == \
        "rejected for another reason"
    assert went_wrong("passed, but no note says '1 graph' (notes: none)") == "without the note it must show"
    assert went_wrong("no note says '1 graph' (notes: none)") == "without the note it must show"
    for ungraded in ("nothing was graded", "none of the checks ['speed'] were graded",
                     "not all of the checks ['speed'] were graded"):
        assert went_wrong(ungraded) == "not all its checks graded"


def test_gpu_specific_cases_include_the_honest_ones_that_must_pass_a_speed_gate():
    """An honest case graded on a speed check passes only where a GPU times it, so `--gpu-specific` grades it (it
    left out 01 extra_clone, 05 mark_dynamic and four more until 2026-11-27); a case a CPU decides stays out."""
    from autograder.tools.gpu_check import selected_cases, timed

    chosen = {f"{c.exercise}/{c.name}": c for c in selected_cases(["01_eager_mode", "05_dynamic_shapes"],
                                                                 gpu_specific=True)}
    for name in ("01_eager_mode/extra_clone", "05_dynamic_shapes/mark_dynamic"):
        assert name in chosen and chosen[name].kind == "honest" and chosen[name].device == "any"
        assert timed(chosen[name])
    every = {f"{c.exercise}/{c.name}": c for c in selected_cases(["01_eager_mode"])}
    cpu_decided = [n for n, c in every.items() if c.device == "any" and not c.gpu_checks and not timed(c)]
    assert cpu_decided and not set(cpu_decided) & set(chosen)


def test_an_honest_case_with_a_gpu_speed_promise_is_graded_on_it_only_where_a_gpu_times_it():
    """05/geometric_buckets promises few_graphs and outputs_match everywhere and the speed gate on a GPU: a GPU
    grading that fails speed is a wrong failure; a CPU grading is not asked for speed at all."""
    from autograder.tools.cases import verdict
    from autograder.tools.gpu_check import selected_cases, timed

    case = next(c for c in selected_cases(["05_dynamic_shapes"], gpu_specific=True) if c.name == "geometric_buckets")
    assert case.must_pass(False) == ("few_graphs", "outputs_match") and timed(case)
    assert case.graded_checks(cuda=True) == ["few_graphs", "outputs_match", "speed"]

    def report(speed_status):
        results = [CheckResult(c, c, "correctness", 0.0, 3, "passed", "ok") for c in ("few_graphs", "outputs_match")]
        results.append(CheckResult("speed", "speed", "speed", 0.0, 4, speed_status, "too slow: 1.2x"))
        return Report("05_dynamic_shapes", results, {"gpu": "test"}, 1.0, False)
    assert verdict(case, report("passed"), cuda=True)[0]
    ok, why = verdict(case, report("failed"), cuda=True)
    assert not ok and "wrongly failed" in why and "speed" in why
    assert verdict(case, report("failed"), cuda=False)[0]
    # a GPU grading that never ran the speed check keeps no speed promise (sittings before 2026-11-30 asked the
    # judge for the CPU checks only)
    unspeeded = report("passed")
    unspeeded.results.pop()
    ok, why = verdict(case, unspeeded, cuda=True)
    assert not ok and why.startswith("not all of the checks") and "speed was not" in why
    assert verdict(case, unspeeded, cuda=False)[0]


def test_timed_cases_go_in_rounds_so_a_deadline_cuts_every_case_short_alike(tmp_path, monkeypatch):
    """Timed cases are graded one at a time, one grading per case in each round: a sitting's deadline leaves each
    case with about as many gradings as the others, not the first case with all of them and the rest with none
    (2026-11-27: 03 autotune_then_hand_capture got 8 gradings and the other 03 cases none). Gradings here are
    sleeps of known length, on no GPU."""
    import time

    from autograder.core.protocol import CheckResult
    from autograder.tools import gpu_check

    names = ["01_eager_mode/eager", "01_eager_mode/backend_eager"]
    cases = {f"{c.exercise}/{c.name}": c for c in gpu_check.selected_cases(["01_eager_mode"], kinds=["wrong"])}
    assert all(gpu_check.timed(cases[n]) for n in names)

    def grading(fn, exercise_id, path, only, alone):  # 0.2 s, failing the checks it was asked for
        time.sleep(0.2)
        return Report(exercise_id, [CheckResult(c, c, "correctness", 0.0, 1, "failed", "no") for c in only],
                      {"gpu": "GPU A"}, 0.2, False).to_json()

    monkeypatch.setattr(gpu_check, "in_fresh_judge", grading)
    lines = []
    gpu_check.check_cases(["01_eager_mode"], 10, 1, lines.append, RawRuns(tmp_path, accumulate=False), names=names,
                          budget=gpu_check.Budget(1.1, first_s=0.2))
    count = [len(RawRuns.read(tmp_path / "gpu-runs" / f"{n.replace('/', '.')}.jsonl")) for n in names]
    assert sum(count) >= 4 and abs(count[0] - count[1]) <= 1, count
    assert any("not enough for case 01_eager_mode" in line for line in lines)


def test_slots_get_whole_physical_cores_so_no_slot_shares_a_core_with_another():
    """On a host whose hyperthreads are numbered N and N+32 (64 CPUs, 32 cores), four slots of 16 CPUs each get 8
    whole cores, both hyperthreads of each: a slot's judge timing a host-bound baseline never shares a core with
    another slot's compile (a layout of 0-15, 16-31, ... put slot 1 on the same cores as slot 3). Without
    hyperthreads the layout is the plain split; a CPU listed without its sibling is a core of its own."""
    from autograder.tools.slots import physical_cores, slots, thread_siblings

    def ht(cpu):
        return {cpu % 32, cpu % 32 + 32}

    layout = [s["cores"] for s in slots(4, list(range(64)), gpus=4, siblings=ht)]
    assert layout[0] == list(range(8)) + list(range(32, 40))
    assert layout[1] == list(range(8, 16)) + list(range(40, 48))
    assert sorted(c for cores in layout for c in cores) == list(range(64))
    cores_of = [{c % 32 for c in cores} for cores in layout]
    assert all(not cores_of[i] & cores_of[j] for i in range(4) for j in range(i + 1, 4))
    assert slots(4, list(range(64)), gpus=4, siblings=lambda cpu: {cpu})[1]["cores"] == list(range(16, 32))
    assert physical_cores([0, 1, 33], ht) == [[0], [1, 33]]  # cpu 32 not ours: cpu 0 alone
    assert 0 in thread_siblings(0) and thread_siblings(10 ** 6) == {10 ** 6}  # no such CPU: itself
