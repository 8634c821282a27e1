"""Committed notebooks are clean: no outputs, execution counts, widget state or local kernel names."""

import shutil

import nbformat
import pytest
import yaml
from conftest import REPO, run_make

from autograder.tools.notebooks import course_notebooks, is_clean, strip

NOTEBOOKS = course_notebooks()
pytestmark = pytest.mark.gate  # `make gates`: seconds, before the suite


def _dirty_copy(tmp_path):
    """A copy of the warm-up solution as Jupyter leaves it after a run."""
    nb = nbformat.read(REPO / "solutions/00_warmup/00_warmup.ipynb", as_version=4)
    nb.metadata["kernelspec"] = {"name": "my-local-env", "display_name": "mine", "language": "python"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.execution_count = 7
    code.outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    code.metadata["collapsed"] = True
    path = tmp_path / "dirty.ipynb"
    nbformat.write(nb, path)
    return path


def test_there_are_notebooks_to_check():
    assert NOTEBOOKS, "no notebooks found under lessons/, solutions/, exercises/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(REPO)))
def test_committed_notebook_is_clean(path):
    assert is_clean(path), f"{path.relative_to(REPO)} has outputs or local metadata: run `make strip`"


def test_strip_drops_outputs_and_local_metadata_but_keeps_nbgrader_and_tags(tmp_path):
    nb = strip(nbformat.read(_dirty_copy(tmp_path), as_version=4))
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "widgets" not in nb.metadata
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
        assert "collapsed" not in cell.metadata
    assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert graded and all(c.metadata["nbgrader"]["points"] > 0 for c in graded)


def test_make_strip_cleans_a_dirty_notebook(tmp_path):
    path = _dirty_copy(tmp_path)
    assert not is_clean(path)
    result = run_make("strip", f"NOTEBOOKS={path}")
    assert result.returncode == 0, result.stderr
    assert is_clean(path)


def test_check_names_the_unclean_notebook_and_the_fix(tmp_path):
    from autograder.tools.notebooks import main

    path = _dirty_copy(tmp_path)
    shutil.copy(REPO / "lessons/00_start_here.ipynb", tmp_path / "clean.ipynb")
    assert main(["check", str(tmp_path / "clean.ipynb")]) == 0
    assert main(["check", str(path)]) == 1


def test_pre_commit_hook_strips_with_the_same_command(tmp_path):
    hooks = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    entry = next(h for h in hooks if h["id"] == "strip-notebooks")["entry"]
    assert entry == "python -m autograder.tools.notebooks strip"


def test_every_notebook_links_on_and_every_relative_link_resolves():
    """Issue 40: no links between notebooks. Each lesson ends with its exercise and the next lesson, each exercise
    starts with its lesson; a link that names a file names one that exists."""
    import json
    import re

    from autograder.tools.paths import REPO

    notebooks = sorted([*REPO.glob("lessons/*.ipynb"), *REPO.glob("solutions/*/*.ipynb"),
                        *REPO.glob("exercises/*/*.ipynb")])
    for nb in notebooks:
        cells = json.loads(nb.read_text())["cells"]
        text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for target in re.findall(r"\]\(([^)#:\s]+\.ipynb)\)", text):
            assert (nb.parent / target).resolve().is_file(), f"{nb.relative_to(REPO)} links to {target}"
        if nb.parent.name == "lessons" and not nb.name.startswith("06"):
            assert re.search(r"\]\(\d\d_\w+\.ipynb\)", text), f"{nb.name} links to no next lesson"
        if nb.parent.parent.name in ("solutions", "exercises") and not nb.name.startswith("00"):
            assert "../../lessons/" in text, f"{nb.relative_to(REPO)} links to no lesson"
