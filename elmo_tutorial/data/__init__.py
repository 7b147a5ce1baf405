"""The data of the course: the dataset registry and checksummed downloads (``registry``,
``dataset_table``, ``downloads``), running text (``corpora``), annotated data (``annotated``),
the generated sense corpus (``sense_corpus``, ``sense_grammar``) and the one tokenizer
(``tokenize``).
"""
