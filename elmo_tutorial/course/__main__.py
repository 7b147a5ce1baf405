"""``python -m elmo_tutorial.course student|slides|html DIR``: what ``make student``,
``make slides`` and ``make html`` run (:mod:`elmo_tutorial.course.material`)."""

import sys

from elmo_tutorial.course.material import main

if __name__ == "__main__":
    sys.exit(main())
