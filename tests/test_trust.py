"""A point is earned only by a fact the judge established itself (core/trust.py): every check declares the facts
that decide it, none of them the worker's word; every request the worker serves is declared once, with its role;
a verdict that reads what the worker says about itself is the grader's error; no reply ends a grading without a
report; and docs/THREAT_MODEL.md's tables are the declarations'."""

import ast

import pytest
import torch
from conftest import fake_check, grade_source

from autograder.core import trust
from autograder.core.grading import PACKAGE
from autograder.core.protocol import FAILED, PASSED, Check, Exercise
from autograder.core.wire import Entry
from autograder.exercises import EXERCISES
from autograder.tools import trust_tables

OPS = {"hello", "load", "pool", "unpool", "reset", "invoke", "block", "collect", "events", "bye", "progress"}


def _requests_named_in_code() -> set[str]:
    """Every request the grader's code names, read from its syntax trees: ops sent with ``.call("op")``, the
    worker's ``op_`` handlers, course functions in ``Fn(...)`` and in a Timed's chain and finish (module constants
    such as WORKLOAD expanded in f-strings)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        if "cases" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                     for t in n.targets if isinstance(t, ast.Name)}

        def text(node, constants=constants):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return node.value
            if isinstance(node, ast.Name) and node.id in constants:
                return constants[node.id]
            if isinstance(node, ast.JoinedStr):
                parts = [text(v.value, constants) if isinstance(v, ast.FormattedValue) else v.value
                         for v in node.values]
                return "".join(parts) if all(isinstance(p, str) for p in parts) else None
            return None

        for node in ast.walk(tree):
            if path.name == "worker.py" and isinstance(node, ast.FunctionDef) and node.name.startswith("op_"):
                found.add(node.name.removeprefix("op_"))
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "call" and node.args:
                op = text(node.args[0])
                if op is not None:
                    found.add(op)
            if isinstance(node.func, ast.Name) and node.func.id == "Fn" and node.args:
                if isinstance(node.args[0], ast.Attribute) and node.args[0].attr in ("chain", "finish"):
                    continue  # a Timed's: named where the Timed is made (its keywords, below)
                name = text(node.args[0])
                assert name is not None, f"{path}:{node.lineno}: a course function named at run time"
                found.add(name)
            for keyword in node.keywords:
                if keyword.arg in ("chain", "finish") and text(keyword.value) is not None:
                    found.add(text(keyword.value))
    return found


def test_every_request_named_in_the_code_is_declared_and_every_declared_one_is_named():
    named = _requests_named_in_code()
    assert named - set(trust.REQUESTS) == set(), "requests the registry does not declare (core/trust.py)"
    assert set(trust.REQUESTS) - named - {"entry", "ref", "event"} == set(), "declared, but nothing sends them"
    assert named & OPS == OPS


def test_every_check_is_decided_by_facts_the_judge_established_and_names_only_declared_requests():
    for exercise_id in EXERCISES:
        for check in EXERCISES[exercise_id].checks:
            assert check.decided_by, check.id
            assert {f.source for f in check.decided_by} <= set(trust.DECIDING), check.id
            assert {f.source for f in check.diagnostics} <= {trust.WORKER}, check.id
            for fact in check.decided_by + check.diagnostics:
                assert set(fact.requests) <= set(trust.REQUESTS), (check.id, fact.what)
            observed = {r for f in check.diagnostics for r in f.requests}
            assert all(trust.REQUESTS[r].role == trust.OBSERVATION for r in observed), check.id


def test_a_check_cannot_be_made_to_rest_on_the_workers_word():
    with pytest.raises(ValueError, match="decided by the worker's word"):
        Check("c", "c", 1, lambda ctx: "", ("f",), decided_by=(trust.worker("a compile counter", "events"),))
    with pytest.raises(ValueError, match="declares no fact"):
        Check("c", "c", 1, lambda ctx: "", ("f",))
    with pytest.raises(ValueError, match="requests the registry does not know"):
        trust.judge("something", "an undeclared request")


def _exercise(*checks) -> Exercise:
    return Exercise("99_trust", "trust", ("double",), checks, "nothing")


DOUBLE = "def double(x):\n    return x * 2\n"


def test_a_verdict_that_reads_what_the_worker_says_about_itself_is_the_graders_error_not_points():
    def reads_counters(ctx):
        ctx.session.events()  # an observation, inside the verdict
        return "passed on the worker's word"

    report = grade_source(DOUBLE, _exercise(fake_check("counts", "counts", 1, reads_counters, ("double",))))
    result = report.result("counts")
    assert result.status == FAILED and result.points == 0
    assert result.message.startswith("grader error") and "observations of the worker" in result.message


def test_observations_after_the_verdict_are_notes_and_earn_nothing():
    def diagnose(ctx):
        return [f"your process says {ctx.session.events().graphs} graph(s)"]

    check = fake_check("answer", "answer", 1, lambda ctx: ctx.call(Entry("double"), 3, what="double(3)").value[
        "value"] == 6 and "double(3) == 6", ("double",), diagnose=diagnose,
        diagnostics=(trust.worker("graphs", "events"),))
    result = grade_source(DOUBLE, _exercise(check)).result("answer")
    assert result.status == PASSED and result.notes == ["your process says 0 graph(s)"]
    assert "not graded" in result.note_lines()[0]


MALFORMED = """
import autograder.core.worker as _w
_real = _w.Worker.handle
def _handle(self, msg):
    reply = _real(self, msg)
    if msg.get("op") == "events":
        return {"events": {"graphs": "many", "graph_breaks": 7, "recompiles": [None, 1.5], "kernels": float("inf")}}
    if msg.get("op") == "invoke":
        return {"value": ["not", "a", "dict"], "ref": "seven", "changed": 5, "threads": {"a": 1}}
    return reply
_w.Worker.handle = _handle
def double(x):
    return x * 2
"""


def test_no_reply_however_malformed_ends_a_grading_without_a_report():
    """A ninth red team's finding: replies were JSON but their shape was not checked, and a count that was a
    string, or a value that was a list, raised in the judge and ended the grading with no report."""
    def uses_reply(ctx):
        got = ctx.call(Entry("double"), 3, what="double(3)")
        assert got.value.get("value") == 6, "double(3) == 6"
        return "fine"

    def diagnose(ctx):
        return [ctx.session.events().summary()]

    report = grade_source(MALFORMED, _exercise(
        fake_check("a", "a", 1, uses_reply, ("double",), diagnose=diagnose,
                   diagnostics=(trust.worker("counters", "events"),)),
        fake_check("b", "b", 1, lambda ctx: "after", ("double",))))
    first = report.result("a")
    assert first.status == FAILED and first.points == 0 and "could not be graded" in first.message
    assert first.notes == ["0 graph(s), 0 graph break(s), 0 recompile(s), 0 generated kernel(s), 0 cudagraph skip(s)"]
    assert report.result("b").status == PASSED  # the grading went on


@pytest.mark.parametrize("value", ["5", "1.5", "True", "{'a': 1}", "['x' * 10**4] * 1000"])
def test_a_load_reply_with_forged_error_lists_still_ends_in_a_report(value):
    """A tenth red team: the load reply's ``load_errors`` is the submission's own ``__load_errors__`` global, and an
    int there crashed the judge (a traceback, no report) once a function was missing; a flood was joined whole."""
    report = grade_source(f"__load_errors__ = {value}\n", _exercise(fake_check("a", "a", 1, lambda ctx: "x",
                                                                               ("double",))))
    message = report.result("a").message
    assert report.result("a").status == FAILED and message.startswith("no function named double"), message
    assert len(message) < 60_000


def test_the_threat_models_tables_are_the_declarations():
    assert trust_tables.current(trust_tables.DOC.read_text()) == trust_tables.tables(), \
        "docs/THREAT_MODEL.md is out of date: run python -m autograder.tools.trust_tables"


def test_every_gpu_pool_the_judge_shares_comes_from_the_workers_private_pool():
    """A pool allocated anywhere else could share an allocator segment with the judge's own tensors (CUDA IPC hands
    over a whole segment): the judge refuses to share it, as its own error."""
    from autograder.core.grading import Session
    from autograder.core.wire import Pool

    session = Session.__new__(Session)
    session._private = object()
    pool = Pool.__new__(Pool)
    pool.tensor, pool.private = type("FakeCuda", (), {"is_cuda": True})(), None
    with pytest.raises(trust.GraderError, match="private memory pool"):
        session.share(pool)
    if torch.cuda.is_available():  # on the GPU host: the real allocation passes
        real = Session.__new__(Session)
        real._private, real.shared = None, {}
        good = Pool(16, torch.float32, "cuda", private=real.private_pool("cuda"))
        assert good.private is real._private


def test_the_registry_says_what_each_request_is_for():
    roles = {r.role for r in trust.REQUESTS.values()}
    assert roles == set(trust.ROLES)
    assert trust.REQUESTS["events"].role == trust.OBSERVATION
    assert trust.REQUESTS["autograder.core.blocks:same"].role == trust.OBSERVATION
    assert trust.REQUESTS["block"].role == trust.TRANSPORT


PARTIAL_REPLY = r"""
import os, time
import autograder.core.worker as _w
def stall():
    os.write(_w._END.conn.fileno(), b"\x00")  # one byte of a reply's 4-byte length, then nothing
    time.sleep(600)
def double(x):
    return x * 2
"""


def test_a_reply_cut_short_keeps_the_judge_no_longer_than_the_calls_limit():
    """A red team's worker wrote one byte of a reply's length header and slept: the judge waited in read() for good
    (the deadline covered only the wait for the first byte), and no report was ever written."""
    stall = fake_check("stall", "stall", 1, lambda ctx: ctx.call(Entry("stall"), what="stall()", timeout=2),
                       ("stall",))
    after = fake_check("after", "after", 1, lambda ctx: ctx.call(Entry("double"), 3, what="double(3)").value[
        "value"] == 6 and "six", ("double",))
    report = grade_source(PARTIAL_REPLY, Exercise("99_trust", "trust", ("double", "stall"), (stall, after), "-"))
    assert "did not answer within 2 s" in report.result("stall").message
    assert report.result("after").status == PASSED  # a fresh worker for the checks after it


def test_what_a_worker_reports_about_itself_is_capped():
    """A red team's worker sent 53,000 long 'changed settings' with every reply: 20 MB and 1.6 CPU-s of the judge's
    each, a 94 MB report line."""
    flood = ("import autograder.core.worker as _w\n"
             "_w.Worker.state = lambda self: {'changed': ['x' * 280] * 50000, 'threads': ['t'] * 50000}\n" + DOUBLE)
    check = fake_check("c", "c", 1, lambda ctx: [ctx.call(Entry("double"), 3, what="double(3)") for _ in range(3)]
                       and "called", ("double",))
    result = grade_source(flood, _exercise(check)).result("c")
    assert result.status == FAILED and len(result.message) < 20_000


def test_the_graders_own_error_inside_a_verdict_is_reported_as_such_and_the_grading_goes_on():
    def broken(ctx):
        raise trust.GraderError("a pool from the wrong memory")

    report = grade_source(DOUBLE, _exercise(fake_check("broken", "broken", 1, broken, ("double",)),
                                            fake_check("next", "next", 1, lambda ctx: "fine", ("double",))))
    assert report.result("broken").message == "grader error: a pool from the wrong memory"
    assert report.result("broken").points == 0 and report.result("next").status == PASSED
