"""Your own replacement policy, written in Python, through the whole pipeline.

The engine keeps what every policy shares: which pages are resident, which are dirty,
the write-back of a dirty victim (a clean one is dropped), the counters and the
after-cache stream. A policy class only decides who leaves::

    class LRU(wafer.Policy):
        def __init__(self, capacity):
            self.order = {}                     # dicts keep insertion order

        def hit(self, page, block, write):
            del self.order[page]
            self.order[page] = None             # most recent last

        def insert(self, page, block, write):
            self.order[page] = None

        def evict(self):
            page = next(iter(self.order))       # least recent first
            del self.order[page]
            return page

The engine calls ``insert`` when a miss makes a page resident (after any eviction it
needed), ``hit`` when an access finds it resident, ``evict`` when a miss finds the
cache full, and ``remove`` when a trim drops a resident page. ``evict`` returns one
page, or a list of pages that leave together as one group in that order (a block
flush). Pages are page numbers; ``block`` is the page's erase-block number (page //
pages per block); ``write`` says whether the access writes. A hook the class does not
define (or leaves as the base class's) is never called, which saves the crossing into
Python for every such event.

A class is named ``py:module:Class`` wherever a policy name goes (a study file, the
``wafer`` command run as ``python -m wafer``); ``module`` is importable or a ``.py``
file relative to the working directory. Passing the class itself registers it under
that name, so a class defined in a notebook or a test works too.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from . import _wafer


class Policy:
    """Base class of a policy written in Python (subclassing it is optional: any class
    with ``evict`` and the hooks it needs will do).

    The engine builds the class as ``cls(capacity, **params)``: ``capacity`` in pages,
    ``params`` the keyword arguments given with :meth:`with_params` or after the name
    (``py:mymod:MyPolicy:window=0.25``), recorded in every row's ``policy`` label.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity

    def hit(self, page: int, block: int, write: bool) -> None:
        """An access found ``page`` resident (a write has made it dirty)."""

    def insert(self, page: int, block: int, write: bool) -> None:
        """A miss made ``page`` resident (dirty on a write, clean on a read)."""

    def evict(self) -> int | list[int]:
        """The cache is full and a page missed: the page that leaves, or a list of
        pages that leave as one group in that order. Each must be resident."""
        raise NotImplementedError(f"{type(self).__name__} does not define evict()")

    def remove(self, page: int, block: int) -> None:
        """A trim dropped the resident ``page`` (nothing is written)."""

    @classmethod
    def with_params(cls, **params: Any) -> str:
        """The policy with keyword arguments, as a policy name for
        :func:`wafer.simulate` and friends (``py:mymod:MyPolicy:window=0.25``)."""
        return spec(cls, params)


def name_of(cls: type) -> str:
    """``py:module:Class`` of a class."""
    return f"py:{cls.__module__}:{cls.__qualname__}"


def _text(value: Any) -> str:
    """A parameter value as the text of a policy name (read back by :func:`_value`)."""
    if isinstance(value, str):
        if "," in value or ":" in value or "=" in value:
            raise ValueError(f"parameter value {value!r}: ',', ':' and '=' cannot be written")
        return value
    if isinstance(value, bool | int | float):
        return repr(value)
    raise TypeError(f"parameter value {value!r}: expected a number, a bool or a string")


def _value(text: str) -> Any:
    """A parameter's text as the Python value the class gets: a number, a bool, else
    the text itself."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return v if isinstance(v, bool | int | float) else text


_REGISTERED: dict[str, type] = {}


def registered() -> dict[str, type]:
    """The classes registered in this process, by name (what a Dask run ships to its
    workers)."""
    return dict(_REGISTERED)


def register(cls: type, name: str | None = None) -> str:
    """Register ``cls`` under ``name`` (default ``py:module:Class``) for this process;
    returns the name."""
    if not isinstance(cls, type):
        raise TypeError(f"policy=: expected a policy class, found {cls!r}")
    if not callable(getattr(cls, "evict", None)):
        raise TypeError(f"{cls.__qualname__}: a policy class needs an evict() method")
    name = name or name_of(cls)
    doc = inspect.getdoc(cls) or ""
    summary = doc.strip().splitlines()[0] if doc.strip() else f"Python policy {cls.__qualname__}"
    _wafer.register_policy(name, cls, summary)
    _REGISTERED[name] = cls
    return name


def spec(cls: type, params: dict[str, Any] | None = None) -> str:
    """Register ``cls`` and return its policy name with ``params``."""
    name = register(cls)
    if params:
        name += ":" + ",".join(f"{k}={_text(v)}" for k, v in params.items())
    return name


def policy_arg(p: Any) -> Any:
    """A ``policy=`` value with every class replaced by its registered name."""
    if isinstance(p, type):
        return spec(p)
    if isinstance(p, list | tuple):
        return [spec(x) if isinstance(x, type) else x for x in p]
    return p


def _load(module: str) -> Any:
    """The module of a ``py:`` name: a ``.py`` file (relative to the working
    directory) or an importable module."""
    if module.endswith(".py"):
        path = Path(module)
        key = "wafer_policy_" + "".join(c if c.isalnum() else "_" for c in str(path))
        if key in sys.modules:
            return sys.modules[key]
        if not path.is_file():
            raise ImportError(f"no file {path} (relative to {Path.cwd()})")
        s = importlib.util.spec_from_file_location(key, path)
        if s is None or s.loader is None:
            raise ImportError(f"{path} is not a Python file")
        m = importlib.util.module_from_spec(s)
        sys.modules[key] = m
        s.loader.exec_module(m)
        return m
    return importlib.import_module(module)


def _resolve(name: str) -> None:
    """Import the class a ``py:module:Class`` name gives and register it (the core
    calls this for a name nobody registered)."""
    module, _, qual = name.removeprefix("py:").partition(":")
    try:
        obj: Any = _load(module)
    except Exception as e:  # noqa: BLE001 - any import failure is the user's to see
        raise ValueError(f"`{name}`: cannot load `{module}`: {type(e).__name__}: {e}") from None
    for part in qual.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"`{name}`: `{module}` has no `{qual}`")
        obj = getattr(obj, part)
    register(obj, name)


def _hook(cls: type, name: str) -> bool:
    """Whether the class defines hook ``name`` (not the base class's no-op)."""
    f = getattr(cls, name, None)
    return f is not None and f is not getattr(Policy, name)


def _check(cls: type, pairs: Iterable[tuple[str, str]]) -> None:
    """Refuse parameters the class's constructor does not take (TypeError)."""
    kw = {k: _value(v) for k, v in pairs}
    try:
        inspect.signature(cls).bind(1, **kw)
    except TypeError as e:
        raise TypeError(f"parameters {kw}: {e}") from None
    except ValueError:
        pass  # no signature to check (a builtin); the constructor will say


def _build(cls: type, capacity: int, pairs: Iterable[tuple[str, str]]) -> tuple[Any, ...]:
    """The bound hooks of one run's object: ``hit``, ``insert``, ``remove`` (None for a
    hook the class does not define) and ``evict``."""
    obj = cls(capacity, **{k: _value(v) for k, v in pairs})
    hooks = tuple(getattr(obj, h) if _hook(cls, h) else None for h in ("hit", "insert", "remove"))
    return (*hooks, obj.evict)


def _describe(hook: str, e: BaseException, tb: TracebackType | None) -> str:
    """One line for an exception raised in a hook: the exception and where (the
    innermost frame of its traceback ``tb``)."""
    where = ""
    frames = traceback.extract_tb(tb or e.__traceback__)
    if frames:
        f = frames[-1]
        where = f" ({Path(f.filename).name}:{f.lineno})"
    msg = " ".join(str(e).split())
    return f"{hook}() raised {type(e).__name__}{': ' + msg if msg else ''}{where}"
