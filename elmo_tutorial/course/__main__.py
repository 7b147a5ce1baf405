"""``python -m elmo_tutorial.course student|slides DIR``: what ``make student`` and ``make
slides`` run."""

from elmo_tutorial.course.material import main

if __name__ == "__main__":
    raise SystemExit(main())
