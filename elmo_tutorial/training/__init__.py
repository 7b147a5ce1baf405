"""Training a biLM: the settings (``train_config``), the trainer, its set-up, loop and resume
(``train``), its run folder (``run_folder``: what is written, and ``load_run``/``load_elmo``
that read it back) and checkpoints (``checkpoints``), its log (``train_log``), distributed
runs (``distributed``, ``launch``, ``workers``), perplexities (``evaluation``) beside a
Kneser-Ney baseline (``ngram``) and what a model costs (``cost``). Notebooks 06, 11 and 14 use
them.
"""
