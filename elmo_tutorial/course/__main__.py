"""``python -m elmo_tutorial.course student DIR`` / ``slides DIR``: what ``make student`` and
``make slides`` run; ``clock``: the lecture plan (:mod:`elmo_tutorial.course.material`)."""

import sys

from elmo_tutorial.course.material import main

if __name__ == "__main__":
    sys.exit(main())
