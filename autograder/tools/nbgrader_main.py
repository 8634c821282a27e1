"""``python -m autograder.tools.nbgrader_main ARGS`` is ``python -m nbgrader ARGS``, without the import that costs
every nbgrader process 3 s of CPU (see this package's docstring). The tools start nbgrader this way."""

from nbgrader.apps.nbgraderapp import main

if __name__ == "__main__":
    main()
