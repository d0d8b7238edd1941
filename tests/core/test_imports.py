"""A package's `__init__` put off until a name of it is used (LanceDB is imported that way: test_lazy_imports)."""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.runtime_imports import defer_package_init


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package `deferme` whose `__init__` imports a heavy submodule, with a light one beside it."""
    folder = tmp_path / "deferme"
    folder.mkdir()
    (folder / "__init__.py").write_text("from deferme.heavy import WEIGHT\nINIT_RAN = True\n")
    (folder / "heavy.py").write_text("WEIGHT = 100\n")
    (folder / "light.py").write_text("from deferme.helper import VALUE\n")
    (folder / "helper.py").write_text("VALUE = 1\n")
    (tmp_path / "plain.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "deferme"
    for name in [m for m in sys.modules if m == "deferme" or m.startswith("deferme.") or m == "plain"]:
        del sys.modules[name]


def test_a_submodule_loads_without_the_package_init_until_a_name_of_it_is_used(package: str) -> None:
    assert defer_package_init(package)
    from deferme.light import VALUE

    assert VALUE == 1
    assert "deferme.heavy" not in sys.modules
    import deferme

    assert deferme.INIT_RAN is True  # the first name asked for runs the __init__
    assert deferme.WEIGHT == 100 and "deferme.heavy" in sys.modules
    assert "__getattr__" not in vars(deferme)
    with pytest.raises(AttributeError):
        deferme.missing  # noqa: B018 - after the __init__, a missing name is missing


def test_only_a_package_not_yet_imported_is_deferred(package: str) -> None:
    assert not defer_package_init("no_such_package_anywhere")
    assert not defer_package_init("plain")  # a module, not a package
    import deferme

    assert not defer_package_init(package)  # already imported: left as it is
    assert deferme.INIT_RAN is True


def test_a_failing_package_init_raises_and_leaves_the_package_unimported(package: str, tmp_path: Path) -> None:
    (tmp_path / "deferme" / "__init__.py").write_text("raise RuntimeError('broken install')\n")
    assert defer_package_init(package)
    import deferme

    with pytest.raises(RuntimeError, match="broken install"):
        deferme.anything  # noqa: B018
    assert package not in sys.modules
