"""Training a biLM (``train``, ``train_config``), its run folders and checkpoints, its log,
distributed runs, perplexities beside a Kneser-Ney baseline, and what a model costs; notebooks
06, 11 and 14 use them."""
