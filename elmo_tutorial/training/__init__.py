"""Training a biLM: the settings (``train_config``), the trainer, its set-up, loop and resume
(``train``), its log (``train_log``), distributed runs (``distributed``, ``launch``),
perplexities (``evaluation``) beside a Kneser-Ney baseline (``ngram``), what a model costs in
parameters, FLOPs and memory (``cost``) and fine-tuning on a task's text (``finetune``).
Notebooks 06, 11 and 14 use them.
"""
