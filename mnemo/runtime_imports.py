"""Import costs paid once per process: a package whose `__init__` loads far more than its
importers use can have that `__init__` put off until a name it defines is first used."""

import importlib.util
import sys
import threading

_LOCK = threading.Lock()


def defer_package_init(name: str) -> bool:
    """Make `import name.sub` load only `sub` (and what it imports) until an attribute the
    package's own `__init__` would define is asked for: then the `__init__` runs, once, and the
    package is what a plain import makes. Whether it was deferred (not for a package already
    imported or not installed). Submodules are found through the package's `__path__`, which
    is set without running the `__init__`."""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def __getattr__(attr: str) -> object:
        with _LOCK:
            if package.__dict__.get("__getattr__") is __getattr__:
                del package.__dict__["__getattr__"]
                try:
                    loader.exec_module(package)
                except BaseException:
                    sys.modules.pop(name, None)  # as a failed import leaves it: the next import tries again
                    raise
        return getattr(package, attr)

    package.__dict__["__getattr__"] = __getattr__
    sys.modules[name] = package
    return True
