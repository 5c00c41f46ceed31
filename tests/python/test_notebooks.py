"""The notebooks under python/notebooks run end to end (nbclient), so they cannot rot; they are
stored without outputs."""
import pathlib

import nbformat
import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "python" / "notebooks").glob("*.ipynb"))


def test_three_notebooks():
    assert [p.stem for p in NOTEBOOKS] == ["custom-policy-openb", "quickstart", "sharing-strategies"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} is stored with outputs; clear them before committing"
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
