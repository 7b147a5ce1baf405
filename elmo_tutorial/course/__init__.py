"""Course tooling: student copies and slides made from the notebooks (``material``, which
``python -m elmo_tutorial.course`` runs), the exercises' markers (``exercises``) and the decks
(``slides``)."""
