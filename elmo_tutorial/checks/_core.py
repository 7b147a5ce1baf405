"""What every self-check shares: compare a student's answer with the package's, explain misses.

Every check fails on a stub, on an empty answer and on an answer that calls the package function
it compares with (:func:`forbidding`); ``tests/checks/test_checks_contract.py`` holds them to it.
In Jupyter a :class:`CheckFailed` shows as its one-line message, without the traceback.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch

from elmo_tutorial.course.exercises import STUB_ADVICE

_RED, _RESET = "\x1b[0;31m", "\x1b[0m"


class CheckFailed(AssertionError):
    """A self-check found a difference; the message says what and where to look."""

    def _render_traceback_(self) -> list[str]:
        """How IPython shows it: the message alone, not the lines of the check it came from."""
        return [f"{_RED}{type(self).__name__}{_RESET}: {self}"]


class NotWrittenYet(CheckFailed, NotImplementedError):
    """The function given to a check still raises its stub's ``NotImplementedError``."""


class Delegated(CheckFailed):
    """The function given to a check called the package function the check compares with."""


def exercise_done(number: int, task: str, done: bool) -> None:
    """Stop a cell that reads an exercise's results before the exercise has produced them: the
    one-line :class:`NotWrittenYet` that a stub gives, instead of an error from half a result.

    >>> exercise_done(1, "how much padding?", True)      # the results are there: nothing
    >>> try:
    ...     exercise_done(1, "how much padding?", False)
    ... except NotWrittenYet as stop:
    ...     print(stop)
    Exercise 1 (how much padding?) is not done yet: write it, run its cell, then this one
    """
    if not done:
        raise NotWrittenYet(f"Exercise {number} ({task}) is not done yet: write it, run its "
                            "cell, then this one")


_STUB = re.compile(r"^Exercise (?P<number>\d+): (?P<task>.*?)\.? "
                   + re.escape(STUB_ADVICE) + "$", re.DOTALL)


def _not_written(error: NotImplementedError) -> NotWrittenYet:
    """The one-line failure for a stub that raised ``error``: which exercise, what to do."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    name = tb.tb_frame.f_code.co_name if tb is not None else "<lambda>"
    where = "your function" if name == "<lambda>" else f"`{name}`"
    stub = _STUB.match(str(error))
    if stub is None:
        return NotWrittenYet(f"{where} raised NotImplementedError: {str(error).rstrip('.')}. "
                             "Write its body, then run this cell again.")
    return NotWrittenYet(
        f"Exercise {stub['number']} ({stub['task']}) is not written yet: {where} still raises "
        "NotImplementedError. Replace that line with your code, then run this cell again.")


def check(fn: Callable) -> Callable:
    """Decorator of every public check: it prints ``✓`` and the message the check returns, and
    turns a stub's ``NotImplementedError`` raised inside the check into a one-line
    :class:`NotWrittenYet`."""

    @functools.wraps(fn)
    def checked(*args, **kwargs) -> None:
        try:
            print(f"✓ {fn(*args, **kwargs)}")
        except CheckFailed:
            raise
        except NotImplementedError as error:
            raise _not_written(error) from None

    return checked


def _name(reference: Any) -> str:
    """``module.function`` (or ``module.Class.method``) of a reference, as a student imports it."""
    if isinstance(reference, tuple):
        owner, attribute = reference
        if isinstance(owner, type):
            where = f"{owner.__module__}.{owner.__qualname__}"
            return f"{where}(...)" if attribute == "__init__" else f"{where}.{attribute}"
        return f"{getattr(owner, '__name__', type(owner).__name__)}.{attribute}"
    module = getattr(reference, "__module__", None) or ""
    qualname = getattr(reference, "__qualname__", None) or getattr(reference, "__name__", "?")
    return f"{module}.{qualname}" if module else qualname


def _unwrap(fn: Any) -> Any:
    while True:
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif hasattr(fn, "__func__"):
            fn = fn.__func__
        else:
            return fn


@contextmanager
def forbidding(fn: Callable, *references: Any, instead: str = "") -> Iterator[None]:
    """Within the block, the package's answer that a check compares with cannot be called.

    Each reference is a function (replaced wherever the package, or the module that defines
    ``fn``, binds it by name) or an ``(owner, "attribute")`` pair (a method, or a class's
    ``__init__``). A call of one of them raises :class:`Delegated` and, should ``fn`` catch
    that, fails the check when the block ends. ``fn`` that *is* a reference fails at once.
    ``instead`` says what to do (``"compute the vector yourself"``).
    """
    what = getattr(_unwrap(fn), "__name__", "your function")
    who = "your function" if what == "<lambda>" else f"`{what}`"
    todo = instead or "write it yourself, from the exercise's description"
    targets = [(r, _name(r)) for r in references]
    functions = {id(r): name for r, name in targets if not isinstance(r, tuple)}
    for r, name in targets:
        original = getattr(*r) if isinstance(r, tuple) else r
        if _unwrap(fn) is original or _unwrap(fn) is _unwrap(original):
            raise Delegated(f"you passed {name} itself, the function this check compares "
                            f"with: {todo}.")
    called: list[str] = []

    def refusing(name: str) -> Callable:
        def refuse(*args, **kwargs):
            called.append(name)
            raise Delegated(f"{who} calls {name}, the function this check compares with: "
                            f"{todo}.")

        return refuse

    # The package's modules' and the answer's own globals, each a dict of names.
    namespaces = [vars(m) for n, m in list(sys.modules.items())
                  if m is not None and (n == "elmo_tutorial" or n.startswith("elmo_tutorial."))]
    namespaces.append(getattr(_unwrap(fn), "__globals__", {}))
    restore: list[tuple[Any, str, Any, bool]] = []  # (owner, attribute, value, was it its own)
    try:
        for namespace in namespaces:
            for attribute, value in list(namespace.items()):
                if id(value) in functions and not attribute.startswith("__"):
                    restore.append((namespace, attribute, value, True))
                    namespace[attribute] = refusing(functions[id(value)])
        for r, name in targets:
            if isinstance(r, tuple):
                owner, attribute = r
                restore.append((owner, attribute, getattr(owner, attribute),
                                attribute in vars(owner)))
                setattr(owner, attribute, refusing(name))
        yield
    finally:
        for owner, attribute, value, own in reversed(restore):
            if isinstance(owner, dict):
                owner[attribute] = value
            elif own:
                setattr(owner, attribute, value)
            else:
                delattr(owner, attribute)
    if called:
        raise Delegated(f"{who} calls {called[0]}, the function this check compares with: "
                        f"{todo}.")


def not_none(got: Any, what: str, expected: str) -> None:
    """Raise :class:`CheckFailed` if ``got`` is ``None`` (a function without ``return``)."""
    if got is None:
        raise CheckFailed(f"{what} returned None: return {expected} (a `return` is missing?).")


def one_number(got: Any, what: str) -> float:
    """``got`` as a float, or a :class:`CheckFailed` asking for one number, ``what``."""
    not_none(got, "your function", f"one number, {what}")
    try:
        if isinstance(got, bool):  # float(True) is 1.0, but True is no count
            raise TypeError
        return float(got)
    except (TypeError, ValueError, RuntimeError):
        raise CheckFailed(f"your function returned {type(got).__name__} {str(got)[:40]}: "
                          f"return one number, {what}.") from None


def filled_dict(got: Any, name: str, must: str) -> None:
    """Raise :class:`CheckFailed` unless ``got`` is a non-empty dict; ``must`` says what it
    maps (``"it must map (task, n) to ..."``)."""
    if not isinstance(got, dict) or not got:
        shown = "empty" if isinstance(got, dict) else f"{type(got).__name__}, not a dict"
        raise CheckFailed(f"{name} is {shown}: {must}")


def tensor_of_shape(got: Any, shape, what: str, hint: str = "") -> torch.Tensor:
    """``got`` if it is a tensor of ``shape``; else a :class:`CheckFailed` saying what it is."""
    shape = tuple(shape)
    not_none(got, what, f"a tensor of shape {shape}")
    if not isinstance(got, torch.Tensor) or got.shape != shape:
        found = f"shape {tuple(got.shape)}" if isinstance(got, torch.Tensor) else type(got).__name__
        raise CheckFailed(f"{what} returned {found}, expected a tensor of shape {shape}. {hint}"
                          .rstrip())
    return got


def assert_close(got, expected, what: str, hint: str = "", atol: float = 1e-5) -> None:
    """Raise ``CheckFailed`` unless two tensors (or arrays, or numbers) agree to ``atol``."""
    expected_t = torch.as_tensor(expected)
    not_none(got, what, f"a tensor of shape {tuple(expected_t.shape)}")
    try:
        got_t = torch.as_tensor(got)
    except (TypeError, ValueError, RuntimeError):
        raise CheckFailed(f"{what}: got {type(got).__name__}, expected a tensor of shape "
                          f"{tuple(expected_t.shape)}. {hint}") from None
    if got_t.shape != expected_t.shape:
        raise CheckFailed(
            f"{what}: shape {tuple(got_t.shape)}, expected {tuple(expected_t.shape)}. {hint}"
        )
    got_d, expected_d = got_t.double(), expected_t.double()
    same = (got_d == expected_d) | (got_d.isnan() & expected_d.isnan())  # inf == inf is fine
    diff = torch.where(same, torch.zeros_like(got_d), (got_d - expected_d).abs())
    if diff.numel() and not torch.isfinite(diff).all():
        where = tuple(int(i) for i in torch.nonzero(~torch.isfinite(diff))[0])
        raise CheckFailed(f"{what}: got {got_t[where].item():.6g} at index {where}, expected "
                          f"{expected_t[where].item():.6g}. {hint}")
    if diff.numel() and diff.max() > atol:
        where = tuple(int(i) for i in torch.nonzero(diff == diff.max())[0])
        raise CheckFailed(
            f"{what}: largest difference {diff.max():.3g} at index {where} "
            f"(got {got_t[where].item():.6g}, expected {expected_t[where].item():.6g}). {hint}"
        )
