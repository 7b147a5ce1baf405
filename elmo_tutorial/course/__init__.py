"""Course tooling: what is made from the notebooks, and what checks the course itself.

  material       student copies, slides and web pages (``python -m elmo_tutorial.course``,
                 which ``make student``, ``make slides`` and ``make html`` run)
  exercises      an exercise's heading, kind, number and task; markers: the solution and
                 answer markers, and the stubs and blanks that replace them
  generated      folders written without losing a student's work
  slides         one reveal.js deck per notebook (nbconvert's SlidesExporter)

The notebooks' self-checks are :mod:`elmo_tutorial.checks`; the figures, widgets and checked
claims that notebooks show are top-level modules (``figures``, ``widgets``, ``claims``).
"""
