"""Checks of the wrappers' arguments, before they reach the core.

NumPy scalars are accepted wherever a Python number is (``np.int64(4096)`` as a size
or a count, ``np.float64(0.1)`` as a rate): a value taken from an array is one. Any
other type is a :class:`TypeError` naming the keyword and what it accepts, rather than
a conversion error from the core or a list made of a ``bytes`` object's integers.
"""

from __future__ import annotations

import functools
import json
import numbers
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _wafer


def _found(v: Any) -> str:
    text = repr(v)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(v).__name__} {text}"


def _is_int(v: Any) -> bool:
    # bool is an Integral too, and True as a size or a count is a mistake.
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def integer(name: str, v: Any) -> int:
    """An int, or a NumPy integer."""
    if _is_int(v):
        return int(v)
    raise TypeError(f"{name}=: expected an int (or a NumPy integer), found {_found(v)}")


def optional_integer(name: str, v: Any) -> int | None:
    """None, an int, or a NumPy integer."""
    return None if v is None else integer(name, v)


def real(name: str, v: Any) -> float:
    """A float, an int, or a NumPy integer or float."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return float(v)
    raise TypeError(
        f"{name}=: expected a number (a float or an int, NumPy scalars too), found {_found(v)}"
    )


def optional_real(name: str, v: Any) -> float | None:
    """None, or a number as :func:`real` takes it."""
    return None if v is None else real(name, v)


def flag(name: str, v: Any) -> bool:
    """A bool, or a NumPy bool."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise TypeError(f"{name}=: expected True or False, found {_found(v)}")


def size(name: str, v: Any) -> str:
    """A size: a string (``"16MiB"``, ``"4096p"``, ``"5%"``) or an int of bytes
    (a NumPy integer too), as the core's text."""
    if isinstance(v, str):
        return v
    if _is_int(v):
        return str(int(v))
    raise TypeError(
        f"{name}=: expected a size: a string such as '16MiB', '4096p' or '5%', "
        f"or an int of bytes (a NumPy integer too), found {_found(v)}"
    )


def sizes(name: str, v: Any) -> list[str]:
    """One size or a sequence (a list, a tuple, a NumPy array) of them."""
    if isinstance(v, str) or _is_int(v):
        return [size(name, v)]
    if isinstance(v, (Sequence, np.ndarray)) and not isinstance(v, (bytes, bytearray)):
        return [size(name, x) for x in v]
    return [size(name, v)]


def text(name: str, v: Any) -> str:
    """A string."""
    if isinstance(v, str):
        return v
    raise TypeError(f"{name}=: expected a string, found {_found(v)}")


def optional_text(name: str, v: Any) -> str | None:
    """None, or a string."""
    return None if v is None else text(name, v)


def texts(name: str, v: Any) -> list[str]:
    """One string or a sequence of them."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, (Sequence, np.ndarray)) and not isinstance(v, (bytes, bytearray)):
        return [text(name, x) for x in v]
    raise TypeError(f"{name}=: expected a string or a list of strings, found {_found(v)}")


def path(name: str, v: Any) -> str:
    """A file path: a string, a path-like object, or bytes (decoded as ``os`` does)."""
    if isinstance(v, (str, bytes, os.PathLike)):
        return os.fsdecode(v)
    raise TypeError(f"{name}=: expected a path (a string or a path-like object), found {_found(v)}")


@functools.cache
def option_table() -> tuple[dict[str, Any], ...]:
    """The engine options as the core declares them (name, flag, aliases, doc,
    default, kind, choices)."""
    return tuple(json.loads(_wafer.engine_option_table()))


def engine_options(function: str, kw: dict[str, Any]) -> str:
    """The engine options among ``function``'s keywords, each checked by its kind, as
    the core's JSON (every option filled in). A keyword that is no option (nor a
    former spelling of one) is a :class:`TypeError` naming the valid ones."""
    checks = {"size": size, "int": integer, "bool": flag, "text": text}
    table = option_table()
    given: dict[str, Any] = {}
    for key, v in kw.items():
        info = next((o for o in table if key == o["name"] or key in o["aliases"]), None)
        if info is None:
            names = ", ".join(o["name"] for o in table)
            raise TypeError(
                f"{function}() got an unexpected keyword argument {key!r} "
                f"(its engine options: {names})"
            )
        given[key] = checks[info["kind"]](key, v)
    return _wafer.engine_options(**given)
