"""What a trained biLM's layers know (notebooks 08-10): the embedder and its cache, static
and contextual vectors, sense separation and neighbours, word senses, probes and taggers,
entity spans, the layer report, the one supervised training loop and paired statistics.
"""
