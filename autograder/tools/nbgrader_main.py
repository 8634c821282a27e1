"""``python -m autograder.tools.nbgrader_main ARGS`` is ``python -m nbgrader ARGS``, without the import that costs
every nbgrader process 3 s of CPU (see this package's docstring), and without the extra Python process nbgrader
starts for each new gradebook. The tools start nbgrader this way."""

from nbgrader.apps.nbgraderapp import main


def alembic_head() -> str:
    """What ``nbgrader.api.get_alembic_version`` returns (the head revision of nbgrader's gradebook migrations, which
    a new gradebook is stamped with), read in this process. nbgrader's own runs ``alembic heads`` as a subprocess: a
    Python start and alembic's imports, about 5 CPU-seconds for each gradebook it creates."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:  # nbgrader's own arguments
        return ScriptDirectory.from_config(Config(ini)).get_current_head()


def use_alembic_head_in_process() -> None:
    import nbgrader.api
    import nbgrader.dbutil

    # nbgrader 0.9's names (alembic_head reads through the second); a later nbgrader without them keeps its own
    if hasattr(nbgrader.api, "get_alembic_version") and hasattr(nbgrader.dbutil, "_temp_alembic_ini"):
        nbgrader.api.get_alembic_version = alembic_head


if __name__ == "__main__":
    use_alembic_head_in_process()
    main()
