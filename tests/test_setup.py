"""The two-command setup: one environment, declared twice (pip and conda) and kept in sync."""

import os
import re

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

import yaml
from conftest import REPO, run_make

# conda-forge spells one package differently from PyPI.
CONDA_TO_PIP = {"pytorch": "torch"}


def _pip_requirements() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["dev"]
    return dict(re.match(r"([A-Za-z0-9_.-]+)(.*)", r).groups() for r in reqs)


def _conda_requirements() -> dict[str, str]:
    deps = yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"]
    found = {}
    pip = [d for dep in deps if isinstance(dep, dict) for d in dep.get("pip", []) if not d.startswith("-")]
    for dep in [d for d in deps if isinstance(d, str)] + pip:  # conda's packages, and those pip installs for it
        name, spec = re.match(r"([A-Za-z0-9_.-]+)(.*)", dep).groups()
        if name not in ("python", "pip"):
            found[CONDA_TO_PIP.get(name, name)] = spec
    return found


def test_pyproject_and_environment_yml_declare_the_same_dependencies():
    assert _conda_requirements() == _pip_requirements(), (
        "environment.yml and pyproject.toml have drifted: give both the same packages and version bounds"
    )


def test_python_bounds_agree():
    pip_bound = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    conda = yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"]
    assert f"python{pip_bound}" in conda


def test_course_requires_torch_2_6_or_newer_and_the_jupyter_stack():
    reqs = _pip_requirements()
    assert reqs["torch"] == ">=2.11"
    assert {"jupyterlab", "nbgrader", "matplotlib", "ipywidgets", "papermill"} <= reqs.keys()


def test_layout_is_the_one_course_md_fixes():
    for path in ["README.md", "Makefile", "environment.yml", "pyproject.toml", "nbgrader_config.py",
                 ".ci/run", "lessons", "solutions", "exercises", "autograder/__init__.py", "tests"]:
        assert (REPO / path).exists(), f"{path} is missing"


def test_make_help_lists_every_target_with_one_line():
    targets = set(re.findall(r"^([a-z-]+):", (REPO / "Makefile").read_text(), flags=re.M))
    out = run_make("help").stdout
    listed = set(re.findall(r"make (\S+)", out))
    assert listed == targets, f"targets without a `## description`: {targets - listed}"
    assert all(len(line.split(None, 2)) == 3 for line in out.strip().splitlines())


def test_torch_requirement_can_be_overridden():
    out = run_make("-n", "-B", "env", "TORCH=torch==2.6.0").stdout
    assert 'pip install --quiet "torch==2.6.0"' in out


def test_environment_is_not_rebuilt_when_it_exists():
    # The stamp is newer than pyproject.toml, so make has nothing to do for the environment.
    out = run_make("-n", "env").stdout
    assert "pip install" not in out, out


def test_env_refuses_a_venv_that_links_to_another_checkouts_environment(tmp_path):
    """A worktree whose .venv links to the main checkout's must not re-point that environment's editable install."""
    other = tmp_path / "main-checkout" / ".venv"
    (other / "bin").mkdir(parents=True)
    link = REPO / f".venv-link-test-{os.getpid()}"
    link.symlink_to(other)
    try:
        result = run_make("-B", "env", f"VENV={link.name}")
    finally:
        link.unlink()
    assert result.returncode != 0
    assert f"{link.name} links to {other}, another checkout's environment" in result.stdout
    assert sorted(p.name for p in other.iterdir()) == ["bin"]  # nothing was installed there


def test_cpu_1_installs_torch_from_the_cpu_index_and_checks_the_build():
    torch_line = next(line for line in run_make("-n", "-B", "env", "CPU=1").stdout.splitlines() if "torch" in line
                      and "pip install" in line)
    assert torch_line.endswith('pip install --quiet "torch>=2.11" --index-url https://download.pytorch.org/whl/cpu')
    assert "torch.version.cuda" in run_make("-n", "-B", "env", "CPU=1").stdout
    plain = run_make("-n", "-B", "env").stdout
    assert "download.pytorch.org" not in plain and "torch.version.cuda" not in plain


def test_the_cpu_check_passes_a_cpu_build_and_stops_a_cuda_build(tmp_path, monkeypatch):
    """The check CPU=1 runs after installing torch, run for real on a stand-in torch of each kind."""
    import sys

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (venv / "bin" / "python").chmod(0o755)
    for cuda, expect_ok in [(None, True), ("12.8", False)]:
        fake = tmp_path / f"torch-{cuda}"
        (fake / "torch").mkdir(parents=True)
        (fake / "torch" / "__init__.py").write_text("from . import version\n__version__ = '2.14.1'\n")
        (fake / "torch" / "version.py").write_text(f"cuda = {cuda!r}\n")
        monkeypatch.setenv("PYTHONPATH", str(fake))
        result = run_make("--eval", "cpu-torch-check: ; $(CPU_TORCH_CHECK)", "cpu-torch-check", "CPU=1",
                          f"VENV={venv}")
        assert (result.returncode == 0) == expect_ok, result.stdout + result.stderr
        if not expect_ok:
            assert "has torch 2.14.1, a CUDA build" in result.stderr and "rm -rf" in result.stderr


def test_ci_runs_the_readmes_cpu_install_with_torch_pinned_to_its_local_wheel():
    ci = (REPO / ".ci/run").read_text()
    assert "PIP_CONSTRAINT" in ci and "torch==2.13.0" in ci
    assert re.search(r"^make test CPU=1\b", ci, flags=re.M)


def test_gpu_check_refuses_to_run_without_a_gpu():
    import sys

    result = run_make("gpu-check", f"PY={sys.executable}")
    assert result.returncode != 0
    assert "needs a CUDA GPU" in result.stderr
