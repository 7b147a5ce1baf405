"""Training a biLM: the settings (``train_config``, each declared once with ``setting``, read
by ``train_bounds`` and ``resume_policy``), the trainer (``train``, ``train_setup``), its log,
threads and distributed runs, perplexities (``evaluation``) beside a Kneser-Ney baseline
(``ngram``), the cost of a model in FLOPs (``cost``) and fine-tuning on a task's text
(``finetune``). Notebooks 06 and 11 use them.
"""
