"""Self-checks for the notebooks' exercises.

Each function takes the student's answer, compares it with the package's own implementation on
fresh inputs, prints ``✓ ...`` when they agree, and raises ``CheckFailed`` with a hint when not
(in Jupyter, just its one-line message). A stub fails as ``NotWrittenYet``; an answer that calls
the package's implementation instead of computing it fails as ``Delegated``.
One module per notebook; everything is re-exported here so notebooks write
``from elmo_tutorial import checks; checks.check_layer_norm(my_layer_norm)``.
"""

from ._core import CheckFailed, Delegated, NotWrittenYet, assert_close, passed

__all__ = ["CheckFailed", "Delegated", "NotWrittenYet", "assert_close", "passed"]
from .backward import *  # noqa: F403
from .char_cnn import *  # noqa: F403
from .contextual import *  # noqa: F403
from .layer_norm import *  # noqa: F403
from .lstm import *  # noqa: F403
from .scalar_mix import *  # noqa: F403
from .scale import *  # noqa: F403
from .static_vs_contextual import *  # noqa: F403
from .tagging import *  # noqa: F403
from .task_model import *  # noqa: F403
from .tokens import *  # noqa: F403
from .training import *  # noqa: F403
from .word_senses import *  # noqa: F403
