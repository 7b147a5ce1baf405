"""The data of the course: the dataset registry (``registry``) and its checksummed downloads
(``downloads``), running text (``corpora``), annotated data (``annotated``), the embedded sense
corpus (``sense_corpus``) and the one tokenizer (``tokenize``).
"""
