"""The GPU class check's bookkeeping (the class itself is graded on a GPU host: `python -m
autograder.tools.classroom_check`): what each student hands in, and what counts as a wrong record."""

import json

from autograder.core.protocol import CheckResult, Report
from autograder.exercises import EXERCISES
from autograder.tools import classroom_check

EX = "04_graph_breaks"


def _report(statuses: dict[str, str], gpu="test GPU") -> Report:
    results = [CheckResult(c.id, c.title, c.kind, c.points if statuses[c.id] == "passed" else 0, c.points,
                           statuses[c.id], "too slow" if statuses[c.id] == "failed" else "ok",
                           notes=["fullgraph=True stopped at a graph break"] if c.id == "no_graph_breaks" else [])
               for c in EXERCISES[EX].checks]
    hidden_ids = {c.id for c in EXERCISES[EX].checks if c.hidden}
    hidden = [r for r in results if r.id in hidden_ids]
    return Report(EX, results, {"gpu": gpu}, 1.0, False, hidden=hidden)


def test_every_student_hands_in_a_notebook_with_the_case_right_after_the_solution_cells():
    for student, plan in classroom_check.CLASS.items():
        assert sorted(plan) == sorted(EXERCISES), student
    nb = json.loads(classroom_check.submission(EX, "original"))
    solution = [i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("solution")]
    pasted = nb["cells"][solution[-1] + 1]
    assert pasted["id"] == "case-original" and "class FixedBlock(BrokenBlock)" in pasted["source"]
    assert json.loads(classroom_check.submission(EX, "untouched")) != json.loads(classroom_check.submission(
        EX, "reference"))


def test_a_score_other_than_the_trusted_reports_or_a_broken_promise_is_a_problem():
    all_pass = _report({c.id: "passed" for c in EXERCISES[EX].checks})
    full = {c.id: float(c.points) for c in EXERCISES[EX].checks}
    assert classroom_check.judge(EX, "reference", all_pass, full) == []
    assert classroom_check.judge(EX, "reference", all_pass, {**full, "speed": 0.0}) == [
        "speed: gradebook 0.0 but the trusted report gives 4.0", "the reference scored 6.0/10"]
    # the unchanged block: on a GPU no_graph_breaks (timed against the judge's compile of the original) must fail;
    # a report passing it breaks the promise
    broken = {"no_graph_breaks": "passed", "outputs_match": "passed", "speed": "passed"}
    scores = {"no_graph_breaks": 3.0, "outputs_match": 3.0, "speed": 4.0}
    assert classroom_check.judge(EX, "original", _report(broken), scores) == [
        "case original: no_graph_breaks passed a wrong case"]
    rejected = _report({**broken, "no_graph_breaks": "failed"})
    assert classroom_check.judge(EX, "original", rejected, {**scores, "no_graph_breaks": 0.0}) == []
    assert classroom_check.judge(EX, "untouched", None, {}) == [f"no trusted report for {EX}"]


def test_a_class_of_any_size_deals_every_profile_in_turn_and_an_unreadable_file_must_score_nothing():
    class24 = classroom_check.roster(24)
    assert len(class24) == 24 and list(class24)[:7] == ["alice1", "bob1", "carol1", "dave1", "eve1", "frank1",
                                                       "alice2"]
    assert sorted(set(class24.values())) == sorted(classroom_check.CLASS)
    assert all(list(class24.values()).count(p) == 4 for p in classroom_check.CLASS)
    assert classroom_check.roster(None, ["eve"]) == {"eve": "eve"}
    assert classroom_check.submission(EX, "unreadable") == classroom_check.BROKEN
    zero = {c.id: 0.0 for c in EXERCISES[EX].checks}
    assert classroom_check.judge(EX, "unreadable", None, zero) == []
    assert classroom_check.judge(EX, "unreadable", None, {**zero, "speed": 4.0}) == ["the unreadable file scored 4.0"]
