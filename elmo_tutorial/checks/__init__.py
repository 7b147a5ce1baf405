"""Self-checks for the notebooks' exercises (a module for one or two notebooks), all re-exported
here: ``from elmo_tutorial import checks; checks.check_highway_layer(my_highway)``. Each prints
``✓ ...`` or raises :class:`CheckFailed` with a hint (what they share: ``_core``).
"""

from elmo_tutorial.checks._core import (
    CheckFailed,
    Delegated,
    NotWrittenYet,
    assert_close,
    exercise_done,
)

__all__ = ["CheckFailed", "Delegated", "NotWrittenYet", "assert_close", "exercise_done"]
from elmo_tutorial.checks.char_cnn import *  # noqa: F403
from elmo_tutorial.checks.contextual import *  # noqa: F403
from elmo_tutorial.checks.layer_norm import *  # noqa: F403
from elmo_tutorial.checks.lstm import *  # noqa: F403
from elmo_tutorial.checks.scale import *  # noqa: F403
from elmo_tutorial.checks.static_vs_contextual import *  # noqa: F403
from elmo_tutorial.checks.tagging import *  # noqa: F403
from elmo_tutorial.checks.task_model import *  # noqa: F403
from elmo_tutorial.checks.training import *  # noqa: F403
from elmo_tutorial.checks.word_senses import *  # noqa: F403
