"""Execute the analysis notebooks in place, so that the copies on disk show their outputs.

    python notebooks/execute.py            # both notebooks, on their default (committed) folders
    python notebooks/execute.py tips.ipynb

Each notebook runs in a fresh ``python3`` kernel with ``notebooks/`` as its working folder
(``tests/test_notebook.py`` re-executes them the same way and checks the outputs). Both read
committed folders only (``results/example``, ``results/tips``) and take a few seconds each.

The runner needs nbclient, nbformat and ipykernel, which ``make run`` does not install (they are in the
``test`` extra, which ``make test`` installs); without them it says so in one line and exits with status 2.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

INSTALL = ("notebooks/execute.py needs nbclient, nbformat and ipykernel (the test extra): "
           "pip install -e '.[test]'")

try:
    import nbclient
    import nbformat

    if importlib.util.find_spec("ipykernel") is None:  # the python3 kernel the notebooks run in
        raise ModuleNotFoundError("ipykernel")
except ModuleNotFoundError:
    print(INSTALL, file=sys.stderr)
    sys.exit(2)

HERE = Path(__file__).resolve().parent
NOTEBOOKS = ("tournament_analysis.ipynb", "tips.ipynb")


def execute(path: Path, timeout: int = 600) -> float:
    """Run every cell of the notebook at ``path`` and write it back with its outputs; return the wall seconds.

    Raises:
        nbclient.exceptions.CellExecutionError: a cell raised (the file is left as it was).
    """
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(nb, path)
    return time.perf_counter() - t0


if __name__ == "__main__":
    for name in sys.argv[1:] or NOTEBOOKS:
        print(f"{name}: executed in {execute(HERE / name):.1f} s")
