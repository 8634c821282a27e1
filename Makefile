# torch.compile, hands-on. `make help` lists the targets; `make lab` and `make test` are all a newcomer needs.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
# torch is installed first, on its own. pip picks the build for the platform: on Linux x86-64 that is the CUDA
# build (about 3 GB of downloads) even on a machine without a GPU. CPU=1 takes the CPU build (about 200 MB) from
# PyTorch's CPU index instead, and fails if pip installed anything else: `make lab CPU=1`, `make test CPU=1` (what
# CI runs). TORCH pins a version or a range, e.g. TORCH="torch==2.13.0".
TORCH ?= torch>=2.11
CPU ?=
CPU_BUILD := $(filter-out 0,$(CPU))
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
CPU_TORCH_CHECK = $(BIN)/python -c "import sys, torch; sys.exit(torch.version.cuda and f'CPU=1, but $(VENV) has \
  torch {torch.__version__}, a CUDA build (installed before without CPU=1, or the CPU index was out of reach): \
  rm -rf $(VENV) and run the command again')"
KERNEL_NAME := torch-compile-course
ARGS ?=
NOTEBOOKS ?=
SIZE ?= auto
DEVICE ?= auto
RELEASE_DIR ?= exercises
PYTEST_ARGS ?=
# Test processes (pytest-xdist): one more than the cores by default, since several tests mostly wait (a cheat's
# sleep, a server starting, a limit running out): 16.3 -> 14.5 min on 2 cores. JOBS=0: all in this one process.
JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
GPU_ARGS ?=
WORKERS ?= 1
STUDENT ?=
# make autograde-slurm: resources per array task (one student, one GPU); SLURM_SUBMIT=1 also submits the jobs;
# SLURM_ARGS: more options for autograder/tools/slurm.py (e.g. --student=bob --sbatch=--qos=high).
SLURM_CPUS ?= 8
SLURM_MEM ?= 32G
SLURM_TIME ?= 02:00:00
SLURM_GRES ?= gpu:1
SLURM_PARTITION ?=
SLURM_ACCOUNT ?=
SLURM_MAX ?= 0
SLURM_ARGS ?=
SLURM_SUBMIT ?=

BIN := $(VENV)/bin
# The interpreter for gpu-check; a GPU host with torch but no internet passes PY=python3 (no .venv built).
PY ?= $(BIN)/python
STAMP := $(VENV)/.course-installed
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: help env lab lab-instructor warm collect test test-fast gates lint strip exercises check gpu-check release autograde feedback grades clean

help: ## list every target with what it does
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# A .venv linked from another checkout (a git worktree sharing its environment) would be pointed at this one.
$(STAMP): pyproject.toml
	@if [ -L "$(VENV)" ] && case "$$(readlink -f "$(VENV)")" in "$$(pwd -P)"/*) false;; *) true;; esac; then \
	  echo "$(VENV) links to $$(readlink -f "$(VENV)"), another checkout's environment: installing this course there" \
	       "would point that checkout's environment at this one. Run make in that checkout, or replace the link" \
	       "(rm $(VENV); make env)."; exit 1; fi
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "$(TORCH)" $(if $(CPU_BUILD),--index-url $(TORCH_CPU_INDEX))
	$(if $(CPU_BUILD),$(CPU_TORCH_CHECK))
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name $(KERNEL_NAME) --display-name "Python (torch.compile course)"
	touch $(STAMP)

env: $(STAMP) ## create the .venv environment if it is missing (lab and test do this for you)

# The learner's lab: nbgrader's instructor tools (Formgrader, Create Assignment, the course list) turned off by a
# config folder of the course's, read before the environment's own (JUPYTER_CONFIG_PATH); nothing is installed.
LEARNER_LAB := $(CURDIR)/autograder/course/learner_lab

lab: $(STAMP) ## open JupyterLab at lessons/, the learner's lab (ARGS=--no-browser on a server)
	JUPYTER_CONFIG_PATH="$(LEARNER_LAB)$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH))" \
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/lessons $(ALLOW_ROOT) $(ARGS)

lab-instructor: $(STAMP) ## instructors: JupyterLab with nbgrader's Formgrader and Create Assignment (a course folder: COURSE=...)
	$(BIN)/jupyter lab --ServerApp.root_dir="$(or $(COURSE),$(CURDIR))" $(ALLOW_ROOT) $(ARGS)

test: gates ## the whole CPU test suite after the cheap gates (creates the environment if missing); PYTEST_ARGS="-k ..." picks
	$(BIN)/python -m pytest -m "not gate" -n $(JOBS) --dist loadgroup $(PYTEST_ARGS)

test-fast: gates ## the gates, then every test not marked slow (no notebook runs, nbgrader, classroom or browser)
	$(BIN)/python -m pytest -m "not gate and not slow" -n $(JOBS) --dist loadgroup $(PYTEST_ARGS)

gates: lint ## seconds-long checks first: notebooks stripped, exercises/ generated from solutions/ (each names its fix)
	$(BIN)/python -m pytest -m gate -q --durations=5

lint: $(STAMP) ## ruff over the package, the tests and the notebooks
	$(BIN)/ruff check .

strip: $(STAMP) ## remove outputs, counts and local metadata from notebooks (NOTEBOOKS=... to pick)
	$(BIN)/python -m autograder.tools.notebooks strip $(NOTEBOOKS)

exercises: $(STAMP) ## regenerate exercises/ from solutions/ with nbgrader (RELEASE_DIR=... to put them elsewhere)
	$(BIN)/python -m autograder.tools.release $(RELEASE_DIR)

check: $(STAMP) ## execute every lesson and solution with papermill (SIZE=smoke|full, DEVICE=cpu|cuda, NOTEBOOKS=...)
	$(BIN)/python -m autograder.tools.run_notebooks --size $(SIZE) --device $(DEVICE) $(NOTEBOOKS)

gpu-check: ## on a CUDA GPU: grade references, wrong approaches and GPU cheats 20x; write benchmarks/gpu-results.*
	$(if $(filter $(BIN)/python,$(PY)),@$(MAKE) --no-print-directory env)
	PYTHONPATH="$(CURDIR)" $(PY) -m autograder.tools.gpu_check $(GPU_ARGS)

release: $(STAMP) ## instructors: nbgrader generate_assignment for every assignment, recorded in gradebook.db
	$(BIN)/python -m autograder.tools.classroom release

collect: $(STAMP) ## instructors: a learning platform's zip of submissions into submitted/ (ASSIGNMENT=01_eager_mode ZIP=file.zip NAMES=plain|canvas|moodle)
	@test -n "$(ASSIGNMENT)" -a -n "$(ZIP)" || { echo "make collect needs ASSIGNMENT=<id> ZIP=<the platform's .zip>" >&2; exit 2; }
	$(BIN)/python -m autograder.tools.collect --assignment "$(ASSIGNMENT)" --zip "$(ZIP)" --names $(or $(NAMES),plain)

warm: $(STAMP) ## instructors: fill the workers' compile cache with the references' compiles (once per machine, torch and grader; autograde runs it)
	$(BIN)/python -m autograder.tools.warm --workers $(WORKERS)

autograde: warm ## instructors: grade every student in submitted/ (WORKERS=N at a time, one per GPU), record scores from the trusted reports
	$(BIN)/python -m autograder.tools.classroom autograde --workers $(WORKERS)

.PHONY: regrade
regrade: warm ## instructors: regrade one student through the trusted unit, then record (STUDENT=alice; STUDENT="a b" for several)
	@test -n "$(STUDENT)" || { echo "make regrade needs STUDENT=<id> (a folder under submitted/)" >&2; exit 2; }
	$(BIN)/python -m autograder.tools.classroom autograde --workers $(WORKERS) $(foreach s,$(STUDENT),--student $(s))

.PHONY: autograde-slurm autograde-ray
autograde-slurm: $(STAMP) ## instructors: write slurm/array.sh (a job array, one task and one GPU per student) and slurm/record.sh; SLURM_SUBMIT=1 submits
	$(BIN)/python -m autograder.tools.slurm --cpus $(SLURM_CPUS) --mem $(SLURM_MEM) --time $(SLURM_TIME) \
	  --gres "$(SLURM_GRES)" --partition "$(SLURM_PARTITION)" --account "$(SLURM_ACCOUNT)" --max-running $(SLURM_MAX) \
	  $(SLURM_ARGS) $(if $(SLURM_SUBMIT),--submit)

autograde-ray: $(STAMP) ## instructors: grade every student as a Ray task, one GPU each (pip install -e ".[ray]"; RAY_ADDRESS for a cluster), then record
	$(BIN)/python -m autograder.tools.classroom autograde --runner ray --workers $(WORKERS)

feedback: $(STAMP) ## instructors: one feedback HTML per student and assignment, under feedback/
	$(BIN)/python -m autograder.tools.classroom feedback

grades: $(STAMP) ## instructors: grades.csv, one row per student, assignment and check
	$(BIN)/python -m autograder.tools.classroom grades

clean: ## delete executed notebooks and caches (keeps .venv; `rm -rf .venv` for a fresh start)
	rm -rf build .pytest_cache .ruff_cache
