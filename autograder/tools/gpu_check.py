"""`make gpu-check`: every exercise's reference solution graded many times through the real grader on a CUDA
GPU (one grading after another: their timings are the figures), and every case of every exercise that runs on a
GPU (wrong approaches, cheats, honest alternatives), each graded ``--case-runs`` times: several at once (``--jobs``)
where no check the case is graded on rests on the clock, one at a time where one does. Writes
benchmarks/gpu-results.json (a fixed contract, read by outside tools) and benchmarks/gpu-results.md.

    python -m autograder.tools.gpu_check [--runs 20] [--case-runs 20] [--jobs 4] [--exercise 01_eager_mode ...]

On a host with several GPUs, ``--gpus N`` runs N such checks at once, each on its own GPU and its own share of the
CPU cores (the layout of ``make autograde WORKERS=N``), splitting the references' runs and the cases between
them, then merges their recorded runs and rebuilds the tables.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from autograder.core import sandbox
from autograder.core.grading import Policy, copy_worker_cache, grade_file
from autograder.core.protocol import Report
from autograder.core.submission import DEFAULT_LIMIT_S, grading_limit
from autograder.exercises import EXERCISES
from autograder.tools import cases as case_files
from autograder.tools.paths import BENCHMARKS, solution
from autograder.tools.slots import slots


def _speed(report: Report) -> dict:
    """Details of the exercise's (first) speed check, if it produced a measurement."""
    for r in report.results:
        if r.kind == "speed" and "speedup" in r.details:
            return r.details
    return {}


def _first_call(report: Report):
    """Seconds of the first call of the candidate (its compile), from the correctness check."""
    return next((r.details["first_call_s"] for r in report.results if "first_call_s" in r.details), None)


def _median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 4) if values else None


def summarise(reports: list[Report]) -> dict:
    speeds = [_speed(r) for r in reports]
    measured = [s for s in speeds if s]
    out = {"runs": len(reports), "passed": sum(r.ok() for r in reports),
           "grade_s": _median([r.seconds for r in reports]),
           "gpu": " / ".join(sorted({str(r.environment.get("gpu")) for r in reports}))}
    if measured:
        medians = [s["speedup"] for s in measured]
        out.update(speedup_median=_median(medians), speedup_min=round(min(medians), 4),
                   speedup_max=round(max(medians), 4),
                   baseline_ms=_median([s["baseline_s"] * 1e3 for s in measured]),
                   candidate_ms=_median([s["candidate_s"] * 1e3 for s in measured]),
                   compile_s=_median([_first_call(r) for r in reports]),
                   spread=_median([s["candidate_spread"] for s in measured]),
                   fraction_of_copy_bandwidth=_median([s.get("fraction_of_copy_bandwidth") for s in measured]),
                   gpu_busy=_median([s.get("gpu_busy") for s in measured]))
        beside = [s["beside_cpu_s"] for s in measured if s.get("beside_cpu_s") is not None]
        if beside:  # CPU beside the requests (speed.BESIDE_SLACK_S): an honest submission's stays near 0
            out.update(beside_cpu_s=_median(beside), beside_cpu_s_max=round(max(beside), 4))
    verdicts: dict[str, int] = {}
    for r in reports:
        for res in r.results:
            key = f"{res.id}:{res.status}"
            verdicts[key] = verdicts.get(key, 0) + 1
    out["verdicts"] = verdicts
    return out


# how a grading went other than its case promises, by the start of cases.verdict's explanation (its texts start so;
# a message quoted after the start is the submission's and is not read): a check the case must fail passed (a hole);
# a check an honest case must pass failed; it passed without the note it must show; the rejection came for another
# reason; or the checks it names were not all graded (a run of an older grader)
WENT_WRONG = {"wrongly failed": "wrongly failed", "passed, but": "without the note it must show",
              "no note says": "without the note it must show",
              "rejected, but not for the expected reason": "rejected for another reason",
              "nothing was graded": "not all its checks graded", "none of the checks": "not all its checks graded",
              "not all of the checks": "not all its checks graded"}


def went_wrong(explanation: str) -> str:
    """The WENT_WRONG wording of one of cases.verdict's explanations for a grading that was not as promised."""
    for start, wording in WENT_WRONG.items():
        if explanation.startswith(start):
            return wording
    return "slipped through"  # "<checks> passed a <kind> case"


def summarise_case(case, reports: list[Report]) -> dict:
    """A case's summary, with how many gradings gave the verdict its header promises."""
    summary = summarise(reports)
    verdicts = [case_files.verdict(case, r, cuda=True) for r in reports]
    summary["as_promised"] = sum(ok for ok, _ in verdicts)
    otherwise = dict.fromkeys(["slipped through", *WENT_WRONG.values()], 0)
    for ok, text in verdicts:
        if not ok:
            otherwise[went_wrong(text)] += 1
    summary["otherwise"] = otherwise
    summary["outcome"], summary["kind"], summary["class"] = case.outcome, case.kind, case.attack
    return summary


class RawRuns:
    """Every grading's full report, one JSON line each, in <out>/gpu-runs/<exercise>.<submission>.jsonl: the
    summaries are recomputed from them, and ``--accumulate`` adds runs made in several sittings (a GPU session
    may cap one command's time) instead of starting over."""

    def __init__(self, out: Path, accumulate: bool):
        self.dir, self.accumulate = out / "gpu-runs", accumulate

    def start(self, exercise_id: str, name: str, keep: bool | None = None) -> tuple[Path, list[Report]]:
        """The file's path and the runs it keeps (``keep``: this sitting's --accumulate unless told); an empty
        file where it keeps none."""
        path = self.path(exercise_id, name)
        self.dir.mkdir(parents=True, exist_ok=True)
        if (self.accumulate if keep is None else keep) and path.exists():
            return path, self.read(path)
        path.write_text("")
        return path, []

    def path(self, exercise_id: str, name: str) -> Path:
        return self.dir / f"{exercise_id}.{name}.jsonl"

    @staticmethod
    def read(path: Path) -> list[Report]:
        return [Report.from_json(line) for line in path.read_text().splitlines() if line.strip()] \
            if path.exists() else []

    @staticmethod
    def add(path: Path, reports: list[Report], report: Report) -> None:
        reports.append(report)
        with path.open("a") as f:
            f.write(report.to_json().replace("\n", " ") + "\n")


class Budget:
    """``--deadline``: seconds from the start after which no grading starts that would not end in time. A grading
    is expected to take as long as the longest one of its kind so far (``first_s`` before any: a cold compile), so a
    host that caps a command's time keeps every grading it started instead of losing the one cut in half."""

    def __init__(self, deadline_s: float = 0, first_s: float = 90.0):
        self.deadline_s, self.first_s, self.start = deadline_s, first_s, time.perf_counter()
        self.longest: dict[str, float] = {}

    def left(self) -> float:
        return self.deadline_s - (time.perf_counter() - self.start) if self.deadline_s else float("inf")

    def refuses(self, kind: str, what: str, log) -> bool:
        """Whether ``what``, expected to take as long as the longest grading of ``kind`` so far, would end after
        the deadline; if so the log says it was not started."""
        if self.left() >= self.longest.get(kind, self.first_s):
            return False
        log(f"--deadline leaves {self.left():.0f} s, not enough for {what}: not started")
        return True

    def run(self, kind: str, fn, *args):
        """``fn(*args)``, its wall time counted towards ``kind``'s expected duration."""
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.longest[kind] = max(self.longest.get(kind, 0.0), time.perf_counter() - t0)


def check_reference(exercise_id: str, runs: int, log, raw: RawRuns, budget: Budget | None = None) -> dict:
    """The reference solution, graded ``runs`` times one after another (the visible checks; the hidden tests
    repeat correctness checks on a second input stream, graded in the CPU suite)."""
    budget = budget or Budget()
    path, reports = raw.start(exercise_id, "reference")
    for done in range(runs):
        if budget.refuses(exercise_id, f"another grading of the {exercise_id} reference (stopped after {done} of "
                                       f"{runs})", log):
            break
        RawRuns.add(path, reports, Report.from_json(budget.run(exercise_id, in_fresh_judge, _grade_reference,
                                                               exercise_id)))
        log(f"{exercise_id} reference {len(reports)} ({reports[-1].seconds:.1f} s, load "
            f"{reports[-1].environment.get('load_s', 0):.1f} s): " + " | ".join(reports[-1].lines()[1:]))
    return summarise(reports)


def timed(case) -> bool:
    """Does the case's verdict rest on the judge's clock? (An honest case is graded on every check.)"""
    checks = {c.id: c for c in EXERCISES[case.exercise].checks}
    wanted = case.graded_checks(cuda=True) or list(checks)  # None: every check
    wanted = set(wanted) | {used for c in wanted if c in checks for used in checks[c].uses}  # graded with them
    return any(checks[c].timed for c in wanted if c in checks)


def in_fresh_judge(fn, *args) -> str:
    """``fn(*args)`` in a judge process of its own, started for this one grading (as the CLI is in a class). One
    long-lived judge ran out of GPU memory after 13 gradings on an H100: torch's CUDA IPC keeps every block it
    shared until the consumer releases it, and a worker, killed at the end of its grading, never does."""
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, initializer=_judge_process,
                                                mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


def _grade_reference(exercise_id: str) -> str:
    return grade_file(EXERCISES[exercise_id], solution(exercise_id)).to_json()


@contextlib.contextmanager
def private_worker_cache():
    """Unsandboxed (every GPU host so far: no bubblewrap), a worker writes the shared worker cache itself, so what
    one grading leaves there reaches the next: a case slow only until its marker exists (03's cold_compile_cache)
    passed its second grading on an H200. A case's grading gets a copy of that cache, thrown away after it, as the
    sandbox gives every worker; sandboxed, the grading makes its own copy."""
    if sandbox.mode() != "none":
        yield
        return
    before = os.environ.get("COURSE_WORKER_CACHE")
    with tempfile.TemporaryDirectory(prefix="case-worker-cache-") as copy:
        copy_worker_cache(Path(copy))
        os.environ["COURSE_WORKER_CACHE"] = copy
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("COURSE_WORKER_CACHE", None)
            else:
                os.environ["COURSE_WORKER_CACHE"] = before


def _grade_case(exercise_id: str, case_path: str, only, alone: bool) -> str:
    """One case's grading (in the process that calls it), on a copy of the worker cache: its report as JSON. The
    time limit is what the slowest honest grading needs with cold caches (about 70 s for 02), twice: a hang costs
    2.5 minutes, not 5; a case that asks for max-autotune gets the grader's own limit for it (grading_limit)."""
    limit = grading_limit([Path(case_path).read_text()])
    with private_worker_cache():
        return grade_file(EXERCISES[exercise_id], solution(exercise_id), overrides=[case_path], only=only,
                          policy=Policy(timeout=limit if limit > DEFAULT_LIMIT_S else 150, drain=alone)).to_json()


def _judge_process() -> None:
    """A case-grading child: a judge of its own, as a real grading has (no judge state shared with others)."""
    from autograder.core.grading import isolate_judge_caches, warm_judge

    isolate_judge_caches()
    warm_judge("cuda")


def check_cases(exercise_ids, runs: int, jobs: int, log, raw: RawRuns, gpu_specific: bool = False,
                names: list[str] | None = None, budget: Budget | None = None, until: int | None = None,
                kinds: list[str] | None = None, gpu: str | None = None) -> dict[str, dict]:
    """Every GPU-capable case of the exercises, ``runs`` gradings each. The cases whose verdicts rest on no clock go
    first, in rounds of one grading per case, ``jobs`` at a time, each judged in a process of its own (judges
    sharing one process would share the GIL, Dynamo's caches and the measured copy bandwidth, which no real grading
    does); then the timed ones, one at a time, like the references, also in rounds (a deadline cuts every case short
    alike, not the last ones whole); last the cases that touch the grader's own files (every check at stake), so
    they cannot disturb the others' gradings. ``gpu_specific``: only the cases whose verdict a GPU changes (the CPU
    suite runs the rest; an honest case graded on a speed gate passes only on a GPU). ``names``: only these cases
    (``exercise/name``); ``kinds``: only these kinds (wrong, cheat, honest). ``until``: instead of ``runs``, as many
    gradings as bring each case's file to ``until`` runs of this GPU (``gpu``, the device's name; a file of another
    GPU model starts over: a file keeps one GPU's runs). ``budget``: nothing is started that would not end before
    its deadline (a round: as long as the longest round so far; a case graded alone: the longest case of its
    exercise so far). Every grading is written to its file as it ends, so a sitting cut short keeps all it finished."""
    budget = budget or Budget()
    todo = selected_cases(exercise_ids, gpu_specific, names, kinds)
    last = [c for c in todo if "*" in c.checks]
    serial = [c for c in todo if c not in last and timed(c)]
    parallel = [c for c in todo if c not in last and c not in serial]

    keep, left, files = {}, {}, {}  # files: opened at a case's first grading (a file is never emptied for nothing)
    for case in todo:
        keep[case] = None  # this sitting's --accumulate
        left[case] = runs
        if until is not None:
            keep[case], left[case], _ = runs_left(raw, case, until, gpu, log)

    out = {}

    def add(case, report_json: str) -> None:
        if case not in files:
            files[case] = raw.start(case.exercise, case.name, keep[case])
        path, reports = files[case]
        RawRuns.add(path, reports, Report.from_json(report_json))
        left[case] -= 1

    def record(case) -> None:
        if case not in files:  # nothing graded in this sitting
            return
        path, reports = files[case]
        out[f"{case.exercise}/{case.name}"] = summary = summarise_case(case, reports)
        log(f"case {case.exercise}/{case.name} ({case.kind}, {case.outcome}): {summary['as_promised']}/"
            f"{len(reports)} as promised | " + " | ".join(reports[-1].lines()[1:]))

    def round_of(pool, cases) -> list[str]:
        # every check a case promises on a GPU, an honest case's gpu_checks too (a speed promise only a GPU keeps)
        return [f.result() for f in [pool.submit(in_fresh_judge, _grade_case, c.exercise, str(c.path),
                                                 c.graded_checks(cuda=True), False) for c in cases]]

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:  # each grading: its own judge
        while pending := [c for c in parallel if left[c] > 0]:
            if budget.refuses("cases at once", f"a round of the {len(pending)} cases graded at once", log):
                break
            for case, report in zip(pending, budget.run("cases at once", round_of, pool, pending), strict=True):
                add(case, report)
    for case in parallel:
        record(case)
    for group in (serial, last):  # in rounds, one grading per case each: a deadline cuts every case short alike
        refused = set()
        while pending := [c for c in group if left[c] > 0 and c not in refused]:
            for case in pending:  # expected to last as long as the longest case of its exercise so far
                if budget.refuses(f"case {case.exercise}", f"case {case.exercise}/{case.name}", log):
                    refused.add(case)
                    continue
                try:
                    add(case, budget.run(f"case {case.exercise}", in_fresh_judge, _grade_case, case.exercise,
                                         str(case.path), case.graded_checks(cuda=True), True))
                finally:
                    (Path(__file__).resolve().parents[1] / "zz_redteam_injected.py").unlink(missing_ok=True)
        for case in group:
            record(case)
    return out


def runs_left(raw: RawRuns, case, until: int, gpu: str, log=None) -> tuple[bool, int, list[Report]]:
    """``--until``: whether the case's recorded runs are kept (all of this GPU model), how many gradings bring its
    file to ``until`` runs, and the runs kept. A file of another GPU model starts over (a file keeps one GPU)."""
    earlier = RawRuns.read(raw.path(case.exercise, case.name))
    keep = all(str(r.environment.get("gpu")) == gpu for r in earlier)
    if earlier and not keep and log:
        log(f"case {case.exercise}/{case.name}: its {len(earlier)} recorded runs are of another GPU "
            f"({earlier[0].environment.get('gpu')}); graded from the start on {gpu}")
    kept = earlier if keep else []
    return keep, max(until - len(kept), 0), kept


def selected_cases(exercise_ids, gpu_specific: bool = False, names: list[str] | None = None,
                   kinds: list[str] | None = None) -> list:
    """The cases a GPU grades: of these exercises, only the GPU-specific ones if asked, only ``names`` and only
    ``kinds`` (wrong, cheat, honest) if given."""
    return [c for c in case_files.cases(device="gpu") if c.exercise in exercise_ids and c.outcome != "secret-hidden"
            and (not gpu_specific or c.device == "gpu" or c.gpu_checks or (c.outcome != "rejected" and timed(c)))
            and (not names or f"{c.exercise}/{c.name}" in names) and (not kinds or c.kind in kinds)]


def case_verdict(summary: dict) -> str:
    """A case's line in redteam_gpu: what every grading did, or WRONG and how often it went wrong."""
    word = {"rejected": "rejected", "diagnosed": "diagnosed"}.get(summary["outcome"], "passed")
    if summary["as_promised"] == summary["runs"]:
        return word if summary["runs"] == 1 else f"{word} {summary['runs']}/{summary['runs']}"
    how = ", ".join(f"{n} {what}" for what, n in summary.get("otherwise", {}).items() if n)
    return f"WRONG: {word} only {summary['as_promised']}/{summary['runs']}" + (f" ({how})" if how else "")


def drop_retired(results: dict, out: Path, summaries: dict[str, dict]) -> None:
    """Cases whose runs were moved into a gpu-runs/before-*/ folder (graded on an exercise's earlier design) leave
    the tables, unless they have runs of the current design beside it."""
    for path in sorted((out / "gpu-runs").glob("before-*/*.jsonl")):
        exercise_id, name = path.stem.split(".", 1)
        key = f"{exercise_id}/{name}"
        if name == "reference":  # the reference of an earlier design: its row goes until the new one is graded
            if not (out / "gpu-runs" / path.name).exists():
                results["exercises"].get(exercise_id, {})["reference"] = None
            continue
        if key in summaries:
            continue
        results.get("cases", {}).pop(key, None)
        results.get("redteam_gpu", {}).pop(key, None)
        results["exercises"].get(exercise_id, {}).get("wrong", {}).pop(name, None)


def place_cases(results: dict, summaries: dict[str, dict]) -> None:
    """Wrong approaches under their exercise (the results contract), cheats and honest cases in redteam_gpu."""
    for key, summary in summaries.items():
        exercise_id, name = key.split("/", 1)
        results.setdefault("cases", {})[key] = summary
        if summary["kind"] == "wrong":
            entry = results["exercises"].setdefault(exercise_id, {"reference": None, "wrong": {}})
            entry["wrong"][name] = summary
        else:
            results["redteam_gpu"][key] = case_verdict(summary)


def markdown(results: dict) -> str:
    lines = [f"# GPU results: {results['gpu']}, torch {results['torch']}, {results['date']}", "",
             "Written by `make gpu-check` (`python -m autograder.tools.gpu_check`): each submission graded through the "
             "real grader (the submission in its own worker process; the judge runs the baseline, holds the clock "
             "and verifies every timed block). Speedups are the grader's own (median of interleaved blocks, host "
             "clock, every output read before the clock stops) over the exercise's baseline; min/max are over the "
             "gradings. References and the cases graded on a timed check were graded one at a time; the other "
             "cases several at a time, each by a judge process of its own. How close to the hardware: % copy bw "
             "(memory-bound exercises) and GPU busy (kernel time, self-reported by the worker's profiler, over the "
             "judge's wall time).", ""]
    lines += [f"- {note}" for note in results.get("notes", [])] + ([""] if results.get("notes") else [])
    lines += ["| exercise | submission | runs | passed | speedup median (min..max) | baseline ms | candidate ms "
             "| compile s | grade s | % copy bw | GPU busy | GPU |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def row(ex, name, s):
        sp = (f"{s['speedup_median']:.2f}x ({s['speedup_min']:.2f}..{s['speedup_max']:.2f})"
              if s.get("speedup_median") is not None else "n/a")
        bw, busy = s.get("fraction_of_copy_bandwidth"), s.get("gpu_busy")
        lines.append(f"| {ex} | {name} | {s['runs']} | {s['passed']} | {sp} | {s.get('baseline_ms', '')} | "
                     f"{s.get('candidate_ms', '')} | {s.get('compile_s', '')} | {s['grade_s']} | "
                     f"{'' if bw is None else f'{bw:.0%}'} | {'' if busy is None else f'{busy:.0%}'} | "
                     f"{s.get('gpu', '')} |")

    for ex, res in results["exercises"].items():
        if res.get("reference"):
            row(ex, "**reference**", res["reference"])
        for name, s in res.get("wrong", {}).items():
            promised = s.get("as_promised", s.get("rejected_for_reason", "?"))
            row(ex, f"wrong: {name} (rejected for its reason {promised}/{s['runs']})", s)
    lines += ["", "## GPU cases: cheats and honest alternatives", "", "| case | kind | class | verdict | GPU |",
              "|---|---|---|---|---|"]
    for key, verdict in sorted(results["redteam_gpu"].items()):
        s = results.get("cases", {}).get(key, {})
        lines.append(f"| {key} | {s.get('kind', '')} | {s.get('class', '')} | {verdict} | {s.get('gpu', '')} |")
    if results.get("classroom"):
        lines += ["", "## Classroom: `make autograde` on this GPU", "", results["classroom"]["how"], "",
                  "| student | assignment | score | expected |", "|---|---|---|---|"]
        lines += [f"| {r['student']} | {r['assignment']} | {r['score']:g}/{r['max']:g} | {r['expected']} |"
                  for r in results["classroom"]["scores"]]
        lines += ["", results["classroom"]["timing"]]
        lines += [f"- PROBLEM: {p}" for p in results["classroom"].get("problems", [])]
        lines += classroom_timings(results["classroom"].get("submissions", []))
    lines += ["", "## Check verdicts per grading", ""]
    for ex, res in results["exercises"].items():
        for name, s in [("reference", res.get("reference"))] + list(res.get("wrong", {}).items()):
            if s:
                lines.append(f"- {ex} {name}: " + ", ".join(f"{k} x{v}" for k, v in s["verdicts"].items()))
    return "\n".join(lines) + "\n"


def classroom_timings(submissions: list[dict]) -> list[str]:
    """Seconds per notebook under ``make autograde`` (the isolated grading's share in brackets), a row per
    student and run, with the total."""
    if not submissions:
        return []
    assignments = sorted({s["assignment"] for s in submissions})
    lines = ["", "| run | student | " + " | ".join(a[:2] for a in assignments) + " | total s |",
             "|---" * (len(assignments) + 3) + "|"]
    for run, student in sorted({(s["run"], s["student"]) for s in submissions}):
        mine = {s["assignment"]: s for s in submissions if (s["run"], s["student"]) == (run, student)}
        cells = [_timing_cell(mine.get(a)) for a in assignments]
        total = sum(m["notebook_s"] or 0 for m in mine.values())
        lines.append(f"| {run} | {student} | " + " | ".join(cells) + f" | {total:.0f} |")
    return lines


def _timing_cell(submission: dict | None) -> str:
    if submission is None or submission["notebook_s"] is None:  # not submitted, or its unit wrote no result
        return ""
    grading = f" ({submission['grading_s']:.1f})" if submission["grading_s"] else ""
    return f"{submission['notebook_s']:.1f}{grading}"


def rebuild(out: Path, classroom: Path | None = None, quiet: bool = False) -> int:
    """Recompute every summary in out/gpu-results.* from the raw runs in out/gpu-runs; ``classroom``: a
    classroom.json written by ``python -m autograder.tools.classroom_check`` becomes the classroom section."""
    json_path = out / "gpu-results.json"
    results = json.loads(json_path.read_text())
    if classroom:
        results["classroom"] = json.loads(classroom.read_text())
    known = {(c.exercise, c.name): c for c in case_files.cases()}
    summaries, seen, torches = {}, set(), set()
    for path in sorted((out / "gpu-runs").glob("*.jsonl")):
        exercise_id, name = path.stem.split(".", 1)
        reports = [Report.from_json(line) for line in path.read_text().splitlines() if line.strip()]
        gpus = {r.environment.get("gpu") for r in reports}
        if len(gpus) > 1:  # a summary speaks for one GPU; sittings on several are kept apart, each row saying which
            raise SystemExit(f"{path}: runs on several GPUs ({gpus}): keep one GPU's runs per file")
        seen.update(gpus)
        torches.update(r.environment.get("torch") for r in reports)
        if name == "reference":
            results["exercises"].setdefault(exercise_id, {"reference": None, "wrong": {}})["reference"] = \
                summarise(reports)
        elif (exercise_id, name) in known:
            summaries[f"{exercise_id}/{name}"] = summarise_case(known[(exercise_id, name)], reports)
    place_cases(results, summaries)
    drop_retired(results, out, summaries)
    if seen:
        results["gpu"] = " / ".join(sorted(str(g) for g in seen))
        results["torch"] = " / ".join(sorted(str(t) for t in torches))
    json_path.write_text(json.dumps(results, indent=1) + "\n")
    (out / "gpu-results.md").write_text(markdown(results))
    if not quiet:
        print(markdown(results))
    return 0


def finish(out: Path, started: float, quiet: bool = False) -> dict:
    """The end of a sitting: every table rebuilt from the recorded runs (this sitting's and earlier ones), and the
    sitting's wall time since ``started`` (perf_counter) added to out/gpu-results.json."""
    rebuild(out, quiet=quiet)
    json_path = out / "gpu-results.json"
    results = json.loads(json_path.read_text())
    results["wall_s"] = round(time.perf_counter() - started, 1)
    json_path.write_text(json.dumps(results, indent=1) + "\n")
    return results


def gate_failures(results: dict) -> list[str]:
    """What makes gpu-check fail: a case not graded as promised, a reference failing, a wrong approach passing."""
    bad = [f"{k}: {v}" for k, v in results["redteam_gpu"].items() if v.startswith("WRONG")]
    for ex, res in results["exercises"].items():
        ref = res.get("reference")
        if ref and ref["passed"] != ref["runs"]:
            bad.append(f"{ex} reference passed {ref['passed']}/{ref['runs']}")
        # a wrong approach must never pass, unless what is wrong is only the worker's word (outcome "diagnosed":
        # its checks pass and a note says what is wrong; its promise is checked as_promised)
        bad += [f"{ex} wrong {n} passed {s['passed']}" for n, s in res.get("wrong", {}).items()
                if s["passed"] and s.get("outcome") != "diagnosed"]
        bad += [f"{ex} wrong {n}: as promised only {s['as_promised']}/{s['runs']}"
                for n, s in res.get("wrong", {}).items() if s.get("as_promised", s["runs"]) != s["runs"]]
    return bad


def start_results(out: Path) -> dict:
    """This sitting's results, merged into out/gpu-results.json. Earlier rows are kept whatever GPU or torch
    they came from (each row says its GPU; the header lists them all after the closing rebuild): a sitting on
    another card once wiped every row it did not grade again."""
    json_path = out / "gpu-results.json"
    previous = json.loads(json_path.read_text()) if json_path.exists() else {}
    results = {"gpu": previous.get("gpu") or torch.cuda.get_device_name(),
               "torch": previous.get("torch") or torch.__version__,
               "date": datetime.date.today().isoformat(), "exercises": dict(previous.get("exercises", {})),
               "redteam_gpu": dict(previous.get("redteam_gpu", {})), "cases": dict(previous.get("cases", {}))}
    if previous.get("notes"):  # what a maintainer wrote about these figures' provenance: kept as it is
        results["notes"] = previous["notes"]
    if previous.get("classroom"):  # written by the classroom run, not by this check: kept as it is
        results["classroom"] = previous["classroom"]
    return results


def split_runs(runs: int, n: int) -> list[int]:
    """``runs`` gradings over n GPUs, as evenly as they go: 20 over 3 is 7, 7, 6."""
    return [runs // n + (1 if i < runs % n else 0) for i in range(n)]


def split_cases(cases: list, n: int) -> list[list[str]]:
    """``exercise/name`` of the cases, dealt round the n GPUs with the timed ones first (graded one at a time,
    they take most of the wall time), so each GPU gets its share of both kinds."""
    ordered = sorted(cases, key=lambda c: not timed(c))
    return [[f"{c.exercise}/{c.name}" for c in ordered[i::n]] for i in range(n)]


def split_by_work(work: dict[str, float], n: int) -> list[list[str]]:
    """``--until`` over n GPUs: whole cases (a case's file is one GPU's to write), the most work first, each to
    the GPU with the least so far, so the GPUs end together. ``work``: expected seconds per ``exercise/name``."""
    shares: list[list[str]] = [[] for _ in range(n)]
    load = [0.0] * n
    for name in sorted(work, key=lambda k: (-work[k], k)):
        i = load.index(min(load))
        shares[i].append(name)
        load[i] += work[name]
    return shares


UNTIL_START_S = 8  # a fresh judge's start (imports, CUDA) before each grading, beside the grading's own seconds


def until_work(cases: list, raw: RawRuns, until: int, gpu: str) -> dict[str, float]:
    """Expected seconds of the gradings ``--until`` lacks, per case lacking any: each as long as the median of its
    recorded gradings (30 s where none is of this GPU) plus a judge's start."""
    work = {}
    for case in cases:
        _, left, kept = runs_left(raw, case, until, gpu)  # a child's log says which files start over
        if left:
            each = statistics.median(r.seconds for r in kept) if kept else 30.0
            work[f"{case.exercise}/{case.name}"] = left * (each + UNTIL_START_S)
    return work


CHILD_MARGIN_S = 20  # a child's start (imports, CUDA) and the parent's merge, inside the parent's --deadline


def child_argv(args, runs: int, names: list[str], out: Path) -> list[str]:
    """The gpu-check one GPU runs: its share of the references' runs and of the cases."""
    parts = set(args.part or ["reference", "cases"])
    argv = ["--out", str(out), "--runs", str(runs), "--case-runs", str(args.case_runs), "--jobs", str(args.jobs)]
    if getattr(args, "until", None) is not None:  # the child counts the runs of the files it was given
        argv += ["--until", str(args.until)]
    argv += [a for ex in (args.exercise or []) for a in ("--exercise", ex)]
    if args.deadline:  # the child starts no grading it cannot end; the parent's kill at the deadline is the backstop
        argv += ["--deadline", f"{max(args.deadline - CHILD_MARGIN_S, 1):g}"]
    if "reference" in parts and runs:
        argv += ["--part", "reference"]
    if "cases" in parts and names:
        argv += ["--part", "cases"] + [a for name in names for a in ("--case", name)]
    return argv if "--part" in argv else []


def seed_runs(out: Path, child_out: Path, names: list[str]) -> None:
    """``--until`` over several GPUs: the recorded runs of a child's cases copied into its --out, so it grades only
    what they lack; the merge then writes each file back whole."""
    (child_out / "gpu-runs").mkdir(parents=True, exist_ok=True)
    recorded = RawRuns(out, True)
    for name in names:
        source = recorded.path(*name.split("/", 1))
        if source.exists():
            (child_out / "gpu-runs" / source.name).write_text(source.read_text())


def merge_runs(sources: list[Path], out: Path, accumulate: bool) -> None:
    """Every source's recorded runs into out/gpu-runs, file by file (appended where --accumulate, or where
    another source of this sitting wrote the file first), and their logs onto out/gpu-check.log."""
    (out / "gpu-runs").mkdir(parents=True, exist_ok=True)
    written: set[str] = set()
    for source in sources:
        for path in sorted((source / "gpu-runs").glob("*.jsonl")):
            mode = "a" if accumulate or path.name in written else "w"
            with open(out / "gpu-runs" / path.name, mode) as f:
                f.write(path.read_text())
            written.add(path.name)
        if (source / "gpu-check.log").exists():
            with open(out / "gpu-check.log", "a") as log:
                log.write(f"# -- {source.name}\n" + (source / "gpu-check.log").read_text())


def fan_out(args, n: int) -> int:
    """``--gpus n``: n gpu-checks at once, one per GPU, each pinned to its share of the cores; then one merge."""
    if torch.cuda.device_count() < n:
        print(f"--gpus {n}: this host has {torch.cuda.device_count()} CUDA GPU(s)", file=sys.stderr)
        return 2
    exercise_ids = args.exercise or sorted(EXERCISES)
    parts = set(args.part or ["reference", "cases"])
    cases = selected_cases(exercise_ids, args.gpu_specific, args.case, args.kind) if "cases" in parts else []
    if args.until is not None:
        names = split_by_work(until_work(cases, RawRuns(args.out, True), args.until, torch.cuda.get_device_name()),
                             n)
    else:
        names = split_cases(cases, n)
    runs = split_runs(args.runs if "reference" in parts else 0, n)
    args.out.mkdir(parents=True, exist_ok=True)
    results = start_results(args.out)
    (args.out / "gpu-results.json").write_text(json.dumps(results, indent=1) + "\n")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        children, sources = [], []
        for i, slot in enumerate(slots(n)):  # the layout of make autograde WORKERS=n
            argv = child_argv(args, runs[i], names[i], Path(tmp) / f"gpu{i}")
            if not argv:
                continue
            if args.until is not None:  # the child counts, keeps or starts over its cases' files, then hands them back
                seed_runs(args.out, Path(tmp) / f"gpu{i}", names[i])
            children.append(subprocess.Popen([sys.executable, "-m", "autograder.tools.gpu_check", *argv],
                                             env={**os.environ, **slot["env"]},
                                             start_new_session=True,  # its judges and workers: one group to stop
                                             preexec_fn=lambda cores=slot["cores"]: os.sched_setaffinity(0, cores)))
            sources.append(Path(tmp) / f"gpu{i}")
        for child in children:
            try:
                child.wait(timeout=max(args.deadline - (time.perf_counter() - start), 1) if args.deadline else None)
            except subprocess.TimeoutExpired:  # a grading in flight is lost; every finished one is on disk
                print(f"--deadline {args.deadline:g} s: stopping the gpu-check on GPU {children.index(child)}",
                      file=sys.stderr)
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
        # --until: a child's file holds the runs it was seeded with and its own, so it replaces the recorded one
        merge_runs([s for s in sources if s.exists()], args.out, args.accumulate and args.until is None)
    results = finish(args.out, start)
    bad = gate_failures(results)
    with open(args.out / "gpu-check.log", "a") as log:
        for line in bad:
            print(f"GATE: {line}")
            log.write(f"GATE: {line}\n")
    return 1 if bad or any(c.returncode not in (0, 1) for c in children) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.gpu_check", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="gradings of each reference solution")
    parser.add_argument("--case-runs", type=int, default=20, help="gradings of each case")
    parser.add_argument("--jobs", type=int, default=1,
                        help="cases graded at once, each by its own judge process, among those graded on no timed "
                             "check (references and timed cases: always one at a time)")
    parser.add_argument("--exercise", action="append", choices=sorted(EXERCISES))
    parser.add_argument("--out", type=Path, default=BENCHMARKS)
    parser.add_argument("--part", action="append", choices=("reference", "cases"), default=None,
                        help="only the references or only the cases (default: both); results merge into an "
                             "existing gpu-results.json in --out")
    parser.add_argument("--gpu-specific", action="store_true",
                        help="only the cases whose verdict a GPU changes (GPU-only cases, speed gates, honest "
                             "cases that must pass a speed gate)")
    parser.add_argument("--case", action="append", metavar="EXERCISE/NAME",
                        help="only these cases (e.g. 03_compile_modes/deferred_compile)")
    parser.add_argument("--kind", action="append", choices=("wrong", "cheat", "honest"),
                        help="only the cases of this kind (e.g. --kind wrong: the wrong approaches)")
    parser.add_argument("--until", type=int, metavar="N",
                        help="instead of --case-runs: grade each case until its file holds N runs of this GPU "
                             "model (a file of another model starts over), over as many sittings as it takes; "
                             "with --gpus, whole cases are dealt to the GPUs by the gradings they lack")
    parser.add_argument("--accumulate", action="store_true",
                        help="add these runs to the ones recorded in --out/gpu-runs instead of starting over")
    parser.add_argument("--gpus", type=int, default=1,
                        help="GPUs of this host to use at once, each with its share of the CPU cores and of the "
                             "runs and cases (the layout of make autograde WORKERS=N)")
    parser.add_argument("--deadline", type=float, default=0,
                        help="seconds (for a host that limits a command's time): no grading starts that would not "
                             "end by then (expected: the longest of its kind so far); with --gpus, a check still "
                             "running at the deadline is stopped and what they recorded is merged")
    parser.add_argument("--rebuild", action="store_true",
                        help="no GPU needed: recompute the summaries in --out from the recorded runs")
    parser.add_argument("--classroom", type=Path,
                        help="with --rebuild: the classroom.json of python -m autograder.tools.classroom_check")
    args = parser.parse_args(argv)
    if args.rebuild:
        return rebuild(args.out, args.classroom)
    parts = set(args.part or ["reference", "cases"])
    if args.until is not None and args.gpus > 1 and parts != {"cases"}:  # the merge writes a case's file back whole
        parser.error("--until with --gpus grades cases only: add --part cases (references: --accumulate)")
    if not torch.cuda.is_available():
        print("make gpu-check needs a CUDA GPU: torch.cuda.is_available() is False here", file=sys.stderr)
        return 2
    if args.gpus > 1:
        return fan_out(args, args.gpus)
    exercise_ids = args.exercise or sorted(EXERCISES)
    args.out.mkdir(parents=True, exist_ok=True)
    raw = RawRuns(args.out, args.accumulate)
    budget = Budget(args.deadline)
    start = time.perf_counter()
    json_path = args.out / "gpu-results.json"
    results = start_results(args.out)

    with open(args.out / "gpu-check.log", "a") as log_file:
        def log(line):
            print(line, flush=True)
            log_file.write(line + "\n")
            log_file.flush()

        def save():  # after every step: a run cut short keeps what it measured
            json_path.write_text(json.dumps(results, indent=1) + "\n")
            (args.out / "gpu-results.md").write_text(markdown(results))

        if "reference" in parts:
            for ex in exercise_ids:
                entry = results["exercises"].setdefault(ex, {"reference": None, "wrong": {}})
                entry["reference"] = check_reference(ex, args.runs, log, raw, budget)
                save()
        if "cases" in parts:
            place_cases(results, check_cases(exercise_ids, args.case_runs, args.jobs, log, raw, args.gpu_specific,
                                             args.case, budget, args.until, args.kind, torch.cuda.get_device_name()))
        save()
        results = finish(args.out, start, quiet=True)
        log(markdown(results))
        bad = gate_failures(results)
        for line in bad:
            log(f"GATE: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
