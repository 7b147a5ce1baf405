"""Other homes for a trained model's weights: the official AllenNLP/bilm-tf files
(``allennlp_format``, ``bilm_hdf5``) and the export of a run (``export``), as notebook 11 shows.
"""
