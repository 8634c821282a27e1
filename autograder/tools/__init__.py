"""The maintainer's and instructor's tools (release, classroom, notebooks, gpu-check, ...).

Every process these tools start reads notebooks (nbformat, nbgrader, papermill), and nbformat imports jsonschema,
which imports ``rfc3987_syntax`` where it is installed (jupyter-events pulls it in through
``jsonschema[format-nongpl]``). That module builds its IRI grammar's Earley parsers at import: about 3 s of CPU in
every such process (python-jsonschema/jsonschema#1428), a minute and more of a class's grading and of ``make test``.
No schema these tools validate uses the ``iri`` formats it checks, so they go without it: jsonschema skips a
format checker whose module does not import."""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # None: importing it raises ImportError, which jsonschema expects
