"""docs/THREAT_MODEL.md's tables of what decides each check and what each request is, written from the declarations
themselves (``Check.decided_by`` and ``Check.diagnostics``; ``core.trust.REQUESTS``), never by hand.

    python -m autograder.tools.trust_tables          # rewrite the tables in docs/THREAT_MODEL.md
    python -m autograder.tools.trust_tables --check  # exit 1 if they differ from the declarations
"""

from __future__ import annotations

import argparse
import sys

from autograder.core import trust
from autograder.exercises import EXERCISES
from autograder.tools.paths import REPO

DOC = REPO / "docs" / "THREAT_MODEL.md"
BEGIN, END = "<!-- trust-tables:begin (python -m autograder.tools.trust_tables) -->", "<!-- trust-tables:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def checks_table() -> str:
    rows = ["| check | points | decided by (judge: its own computation; clock: its own clock; answer: compared with "
            "its own truth) | shown, never graded (your process's word) |", "|---|---|---|---|"]
    for exercise_id in EXERCISES:
        for check in EXERCISES[exercise_id].checks:
            decided = "<br>".join(f"**{f.source}**: {_cell(f.what)}" for f in check.decided_by)
            shown = "<br>".join(_cell(f.what) for f in check.diagnostics) or "—"
            rows.append(f"| {exercise_id} `{check.id}` | {check.points} | {decided} | {shown} |")
    return "\n".join(rows)


def requests_table() -> str:
    rows = ["| request | role | on the judge's clock | what the worker runs |", "|---|---|---|---|"]
    for request in sorted(trust.REQUESTS.values(), key=lambda r: (trust.ROLES.index(r.role), r.name)):
        name = request.name.removeprefix("autograder.")
        rows.append(f"| `{name}` | {request.role} | {request.clock} | {_cell(request.runs)} |")
    return "\n".join(rows)


def tables() -> str:
    return (f"{BEGIN}\n\n### What decides each check\n\n{checks_table()}\n\n### Every request the worker serves\n\n"
            f"Transport: moves what the judge verifies. Lifecycle: starts, maps, resets, limits, ends; decides "
            f"nothing (a limiter can only fail a submission). Observation: what the worker says about itself; read "
            f"only after a verdict, for the notes (a verdict that reads one is the grader's error). On the clock: "
            f"every request is timed on the judge's clock (its ledger); timed: inside a measured block; charged: "
            f"counted in every budget window it falls in; after: read only after the verdict.\n\n"
            f"{requests_table()}\n\n{END}")


def current(text: str) -> str:
    if BEGIN not in text or END not in text:
        return ""
    return text[text.index(BEGIN):text.index(END) + len(END)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.trust_tables",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the document's tables are out of date")
    args = parser.parse_args(argv)
    text = DOC.read_text()
    found = current(text)
    if args.check:
        if found != tables():
            print(f"{DOC} is out of date with the declarations: run python -m autograder.tools.trust_tables",
                  file=sys.stderr)
            return 1
        return 0
    if not found:
        raise SystemExit(f"{DOC} has no {BEGIN} ... {END} section to write")
    DOC.write_text(text.replace(found, tables()))
    print(f"wrote the tables of {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
