"""The data of the course: the dataset registry and checksummed downloads, running text
(``corpora``), annotated data (``annotated``), their files read through the guard
(``dataset_files``), the generated sense corpus (``sense_corpus``, ``sense_grammar``) and the
one tokenizer (``tokenize``).
"""
