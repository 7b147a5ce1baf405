"""Self-checks for the notebooks' exercises.

Each function takes the student's answer, compares it with the package's own implementation on
fresh inputs, prints ``✓ ...`` when they agree, and raises ``CheckFailed`` with a hint when not
(in Jupyter, just its one-line message). A stub fails as ``NotWrittenYet``; an answer that calls
the package's implementation instead of computing it fails as ``Delegated``.
One module per notebook; everything is re-exported here so notebooks write
``from elmo_tutorial import checks; checks.check_highway_layer(my_highway)``.
"""

from elmo_tutorial.checks._core import (
    CheckFailed,
    Delegated,
    NotWrittenYet,
    assert_close,
    exercise_done,
    passed,
)

__all__ = ["CheckFailed", "Delegated", "NotWrittenYet", "assert_close", "exercise_done",
           "passed"]
from elmo_tutorial.checks.backward import *  # noqa: F403
from elmo_tutorial.checks.capstone import *  # noqa: F403
from elmo_tutorial.checks.char_cnn import *  # noqa: F403
from elmo_tutorial.checks.contextual import *  # noqa: F403
from elmo_tutorial.checks.layer_norm import *  # noqa: F403
from elmo_tutorial.checks.lstm import *  # noqa: F403
from elmo_tutorial.checks.scalar_mix import *  # noqa: F403
from elmo_tutorial.checks.scale import *  # noqa: F403
from elmo_tutorial.checks.static_vs_contextual import *  # noqa: F403
from elmo_tutorial.checks.tagging import *  # noqa: F403
from elmo_tutorial.checks.task_model import *  # noqa: F403
from elmo_tutorial.checks.tokens import *  # noqa: F403
from elmo_tutorial.checks.training import *  # noqa: F403
from elmo_tutorial.checks.word_senses import *  # noqa: F403
