"""`make gpu-check`: every exercise's reference solution and known-wrong approaches, graded many times through
the real (isolated) grader on a CUDA GPU, plus the GPU red-team cases. Writes benchmarks/gpu-results.json
(a fixed contract, COURSE.md) and benchmarks/gpu-results.md.

    python -m autograder.tools.gpu_check [--runs 20] [--exercise 01_eager_mode ...] [--out benchmarks]
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from autograder import redteam
from autograder.exercises import EXERCISES, SUBMISSIONS
from autograder.grader import Report
from autograder.isolation import grade_file

REPO = Path(__file__).resolve().parent.parent


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
           "grade_s": _median([r.seconds for r in reports])}
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
    verdicts: dict[str, int] = {}
    for r in reports:
        for res in r.results:
            key = f"{res.id}:{res.status}"
            verdicts[key] = verdicts.get(key, 0) + 1
    out["verdicts"] = verdicts
    return out


def summarise_wrong(exercise_id: str, wrong, reports: list[Report]) -> dict:
    """A wrong approach's summary, with how many gradings rejected it for its stated reason."""
    summary = summarise(reports)
    case = redteam.from_wrong_approach(exercise_id, wrong, cuda=True)
    summary["rejected_for_reason"] = sum(redteam.verdict(case, r)[0] for r in reports)
    return summary


class RawRuns:
    """Every grading's full report, one JSON line each, in <out>/gpu-runs/<exercise>.<submission>.jsonl: the
    summaries are recomputed from them, and ``--accumulate`` adds runs made in several sittings (a GPU session
    may cap one command's time) instead of starting over."""

    def __init__(self, out: Path, accumulate: bool):
        self.dir, self.accumulate = out / "gpu-runs", accumulate

    def start(self, exercise_id: str, name: str) -> tuple[Path, list[Report]]:
        path = self.dir / f"{exercise_id}.{name}.jsonl"
        self.dir.mkdir(parents=True, exist_ok=True)
        if self.accumulate and path.exists():
            return path, [Report.from_json(line) for line in path.read_text().splitlines() if line.strip()]
        path.write_text("")
        return path, []

    @staticmethod
    def add(path: Path, reports: list[Report], report: Report) -> None:
        reports.append(report)
        with path.open("a") as f:
            f.write(report.to_json().replace("\n", " ") + "\n")


def check_exercise(exercise_id: str, runs: int, wrong_runs: int, log, parts, previous: dict, save,
                   raw: RawRuns) -> dict:
    exercise = EXERCISES[exercise_id]
    solution = REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb"
    result = {"reference": previous.get("reference"), "wrong": dict(previous.get("wrong", {}))}
    if "reference" in parts:
        path, reports = raw.start(exercise_id, "reference")
        for _ in range(runs):
            RawRuns.add(path, reports, grade_file(exercise_id, solution))
            log(f"{exercise_id} reference {len(reports)} ({reports[-1].seconds:.1f} s, load "
                f"{reports[-1].environment.get('load_s', 0):.1f} s): " + " | ".join(reports[-1].lines()[1:]))
        result["reference"] = summarise(reports)
        save(exercise_id, result)
    for wrong in exercise.wrong:
        name = Path(wrong.file).stem
        if "wrong" not in parts and name not in parts:
            continue
        path, wrong_reports = raw.start(exercise_id, name)
        for _ in range(wrong_runs):
            RawRuns.add(path, wrong_reports, grade_file(exercise_id, solution, only=list(wrong.checks(cuda=True)),
                                                        overrides=[SUBMISSIONS / exercise_id / wrong.file]))
            log(f"{exercise_id} wrong {wrong.file} {len(wrong_reports)}: " + " | ".join(wrong_reports[-1].lines()[1:]))
        result["wrong"][name] = summarise_wrong(exercise_id, wrong, wrong_reports)
        save(exercise_id, result)
    return result


def check_redteam(exercise_ids, log) -> dict:
    out = {}
    for case in redteam.cases(device="gpu"):
        if case.exercise not in exercise_ids or case.device != "gpu":
            continue
        only = None if case.checks in (("*",), ()) else list(case.checks)
        solution = REPO / "solutions" / case.exercise / f"{case.exercise}.ipynb"
        report = grade_file(case.exercise, solution, overrides=[case.path], only=only)
        ok, why = redteam.verdict(case, report)
        verdict = ("rejected" if case.outcome == "rejected" else "passed") if ok else f"WRONG: {why}"
        out[f"{case.exercise}/{case.name}"] = verdict
        log(f"redteam {case.exercise}/{case.name}: {verdict} | " + " | ".join(report.lines()[1:]))
    return out


def markdown(results: dict) -> str:
    lines = [f"# GPU results: {results['gpu']}, torch {results['torch']}, {results['date']}", "",
             "Written by `make gpu-check` (`python -m autograder.tools.gpu_check`): each submission graded through the "
             "real isolated grader. Speedups are the grader's own (median of interleaved blocks, host clock, "
             "device-wide synchronize) over the exercise's baseline; min/max are over the gradings. How close to the "
             "hardware: % copy bw (memory-bound exercises) and GPU busy (kernel time over wall time of the "
             "candidate; launch-bound exercises).", "",
             "| exercise | submission | runs | passed | speedup median (min..max) | baseline ms | candidate ms "
             "| compile s | grade s | % copy bw | GPU busy |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def row(ex, name, s):
        sp = (f"{s['speedup_median']:.2f}x ({s['speedup_min']:.2f}..{s['speedup_max']:.2f})"
              if s.get("speedup_median") is not None else "n/a")
        bw, busy = s.get("fraction_of_copy_bandwidth"), s.get("gpu_busy")
        lines.append(f"| {ex} | {name} | {s['runs']} | {s['passed']} | {sp} | {s.get('baseline_ms', '')} | "
                     f"{s.get('candidate_ms', '')} | {s.get('compile_s', '')} | {s['grade_s']} | "
                     f"{'' if bw is None else f'{bw:.0%}'} | {'' if busy is None else f'{busy:.0%}'} |")

    for ex, res in results["exercises"].items():
        if res["reference"]:
            row(ex, "**reference**", res["reference"])
        for name, s in res["wrong"].items():
            row(ex, f"wrong: {name} (rejected for its reason {s.get('rejected_for_reason', '?')}/{s['runs']})", s)
    lines += ["", "## GPU red-team cases", "", "| case | verdict |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in results["redteam_gpu"].items()]
    if results.get("classroom"):
        lines += ["", "## Classroom: `make autograde` on this GPU", "", results["classroom"]["how"], "",
                  "| student | assignment | score | expected |", "|---|---|---|---|"]
        lines += [f"| {r['student']} | {r['assignment']} | {r['score']:g}/{r['max']:g} | {r['expected']} |"
                  for r in results["classroom"]["scores"]]
        lines += ["", results["classroom"]["timing"]]
        lines += classroom_timings(results["classroom"].get("submissions", []))
    lines += ["", "## Check verdicts per grading", ""]
    for ex, res in results["exercises"].items():
        for name, s in [("reference", res["reference"])] + list(res["wrong"].items()):
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
        total = sum(m["notebook_s"] for m in mine.values())
        lines.append(f"| {run} | {student} | " + " | ".join(cells) + f" | {total:.0f} |")
    return lines


def _timing_cell(submission: dict | None) -> str:
    if submission is None:
        return ""
    grading = f" ({submission['grading_s']:.1f})" if submission["grading_s"] else ""
    return f"{submission['notebook_s']:.1f}{grading}"


def rebuild(out: Path) -> int:
    """Recompute every summary in out/gpu-results.* from the raw runs in out/gpu-runs."""
    json_path = out / "gpu-results.json"
    results = json.loads(json_path.read_text())
    for path in sorted((out / "gpu-runs").glob("*.jsonl")):
        exercise_id, name = path.stem.split(".", 1)
        reports = [Report.from_json(line) for line in path.read_text().splitlines() if line.strip()]
        gpus = {r.environment.get("gpu") for r in reports}
        if gpus != {results["gpu"]}:
            raise SystemExit(f"{path}: runs on {gpus}, but {json_path} is for {results['gpu']}")
        entry = results["exercises"].setdefault(exercise_id, {"reference": None, "wrong": {}})
        if name == "reference":
            entry["reference"] = summarise(reports)
            continue
        wrong = next(w for w in EXERCISES[exercise_id].wrong if Path(w.file).stem == name)
        entry["wrong"][name] = summarise_wrong(exercise_id, wrong, reports)
    json_path.write_text(json.dumps(results, indent=1) + "\n")
    (out / "gpu-results.md").write_text(markdown(results))
    print(markdown(results))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.gpu_check", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--wrong-runs", type=int, default=None, help="default: --runs")
    parser.add_argument("--exercise", action="append", choices=sorted(EXERCISES))
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks")
    parser.add_argument("--part", action="append", default=None,
                        help="reference, wrong, redteam or one wrong approach's name (default: all); results "
                             "merge into an existing gpu-results.json in --out, so a long check can be split")
    parser.add_argument("--accumulate", action="store_true",
                        help="add these runs to the ones recorded in --out/gpu-runs instead of starting over")
    parser.add_argument("--rebuild", action="store_true",
                        help="no GPU needed: recompute the summaries in --out from the recorded runs (e.g. after a "
                             "run was cut short by a time limit)")
    args = parser.parse_args(argv)
    if args.rebuild:
        return rebuild(args.out)
    parts = set(args.part or ["reference", "wrong", "redteam"])
    if not torch.cuda.is_available():
        print("make gpu-check needs a CUDA GPU: torch.cuda.is_available() is False here", file=sys.stderr)
        return 2
    exercise_ids = args.exercise or sorted(EXERCISES)
    args.out.mkdir(parents=True, exist_ok=True)
    log_file = open(args.out / "gpu-check.log", "a")

    def log(line):
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    start = time.perf_counter()
    json_path = args.out / "gpu-results.json"
    previous = json.loads(json_path.read_text()) if json_path.exists() else {}
    if previous and (previous.get("gpu"), previous.get("torch")) != (torch.cuda.get_device_name(), torch.__version__):
        previous = {}  # another GPU or torch: nothing to merge with
    results = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
               "date": datetime.date.today().isoformat(), "exercises": dict(previous.get("exercises", {})),
               "redteam_gpu": dict(previous.get("redteam_gpu", {}))}
    if previous.get("classroom"):  # written by the classroom run, not by this check: kept as it is
        results["classroom"] = previous["classroom"]
    def save(exercise_id, partial):  # after every submission: a run cut short keeps what it measured
        results["exercises"][exercise_id] = partial
        json_path.write_text(json.dumps(results, indent=1) + "\n")
        (args.out / "gpu-results.md").write_text(markdown(results))

    for ex in exercise_ids:
        results["exercises"][ex] = check_exercise(ex, args.runs, args.wrong_runs or args.runs, log, parts,
                                                  results["exercises"].get(ex, {}), save,
                                                  RawRuns(args.out, args.accumulate))
    if "redteam" in parts:
        results["redteam_gpu"].update(check_redteam(exercise_ids, log))
    results["wall_s"] = round(time.perf_counter() - start, 1)
    json_path.write_text(json.dumps(results, indent=1) + "\n")
    (args.out / "gpu-results.md").write_text(markdown(results))
    log(markdown(results))
    bad = [k for k, v in results["redteam_gpu"].items() if v.startswith("WRONG")]
    for ex, res in results["exercises"].items():
        if res["reference"] and res["reference"]["passed"] != res["reference"]["runs"]:
            bad.append(f"{ex} reference passed {res['reference']['passed']}/{res['reference']['runs']}")
        bad += [f"{ex} wrong {n} passed {s['passed']}" for n, s in res["wrong"].items() if s["passed"]]
    for line in bad:
        log(f"GATE: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
