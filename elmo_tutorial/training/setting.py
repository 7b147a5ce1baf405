"""One training setting, declared once: its default, its help, its range, and what ``--resume``
does when it changes.

A field of :class:`~elmo_tutorial.training.train_config.TrainConfig` is written ::

    lr: float = setting(
        3e-3, "peak learning rate", above=0,
        on_resume="changeable", why="the schedule goes on from the checkpoint's step ...")

and what needs to know about a setting reads that declaration, kept by ``dataclasses`` in the
field's ``metadata`` (``dataclasses.fields(TrainConfig)``), instead of a list of its own:

- ``elmo-tutorial train --help`` prints ``help`` and the choices
  (:func:`elmo_tutorial.commands.train.add_arguments`);
- :func:`elmo_tutorial.training.train_bounds.train_config_problems` checks ``minimum``,
  ``above``, ``maximum`` and ``choices`` whenever a ``TrainConfig`` is made or changed;
- :mod:`elmo_tutorial.training.resume_policy` sorts the settings by ``on_resume`` and gives
  ``why`` when ``--resume`` refuses or announces a change.

A ``ModelConfig`` field carries only its ``help`` (:func:`elmo_tutorial.model.config.described`):
the model checks its own values, and every architecture field is fixed on resume.

Example:
    >>> from dataclasses import dataclass, fields
    >>> @dataclass
    ... class Toy:
    ...     epochs: int = setting(1, "passes over the data", minimum=1,
    ...                           on_resume="changeable", why="training goes on to the new length")
    >>> meta = fields(Toy)[0].metadata
    >>> meta["help"], meta["minimum"], meta["on_resume"]
    ('passes over the data', 1, 'changeable')
    >>> setting(0.5, "a rate", on_resume="changeable", why="from the next step")
    Traceback (most recent call last):
        ...
    TypeError: a numeric setting needs a range: give minimum= or above= (a rate)
"""

from __future__ import annotations

import dataclasses

__all__ = ["RESUME_RULES", "setting"]

# What --resume does with a changed setting (resume_policy applies them):
RESUME_RULES = {
    "fixed": "refused: the checkpoint cannot continue under another value (why says what "
             "it holds)",
    "changeable": "taken, and announced with what it does from the checkpoint on (why)",
    "silent": "taken without a notice: display or paths only (why is still its reason)",
    "architecture": "it names an architecture (model, model_overrides): compared through the "
                    "ModelConfig it gives, each model.FIELD fixed",
}


def setting(default=dataclasses.MISSING, help: str = "", *,
            default_factory=dataclasses.MISSING, minimum: float | None = None,
            above: float | None = None, below: float | None = None,
            maximum: float | None = None,
            choices: tuple | None = None, on_resume: str, why: str) -> dataclasses.Field:
    """A dataclass field that declares a training setting whole.

    Args:
        default: the value when none is given (or ``default_factory`` for a mutable one).
        help: one line for ``elmo-tutorial train --help``: what the setting does and what
            special values mean (``0 = no limit``).
        minimum: the smallest value allowed (``value ≥ minimum``; a float must also be finite).
        above: a bound the value must exceed (``value > above``), for rates and factors.
        below: a bound the value must stay under (``value < below``), for a probability.
        maximum: the largest value a run can use, for settings that size memory or processes.
        choices: the values allowed, for a setting that names one of a few things.
        on_resume: one of :data:`RESUME_RULES`.
        why: the reason for ``on_resume``, as ``--resume`` prints it.

    Raises:
        TypeError: for a declaration that leaves out what every setting needs (a help line, a
            known rule with its reason, a range for a number), when the class is defined.
    """
    if not help:
        raise TypeError("a setting needs a help line: what it does, for train --help")
    if on_resume not in RESUME_RULES or not why:
        raise TypeError(f"{help}: on_resume must be one of {list(RESUME_RULES)}, with why= "
                        f"giving the reason; got on_resume={on_resume!r}, why={why!r}")
    numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
    if numeric and choices is None and minimum is None and above is None:
        raise TypeError(f"a numeric setting needs a range: give minimum= or above= ({help})")
    metadata = {"help": help, "minimum": minimum, "above": above, "below": below,
                "maximum": maximum,
                "choices": None if choices is None else tuple(choices),
                "on_resume": on_resume, "why": why}
    return dataclasses.field(default=default, default_factory=default_factory,
                             metadata=metadata)

