"""The plain ELMo model: what notebooks 01-07 build, one module per idea, read beside the paper.

Tokens → character ids (``chars``, ``vocab``, ``batching``) → the character CNN and highway
(``char_cnn``, layer 0) → one LSTMP cell (``lstmp``) and the stacks of both directions
(``lstm``) → the softmax and the joint loss of the biLM (``softmax``, ``lm``) → layer norm and
the scalar mix (``layer_norm``, ``scalar_mix``) → ``ELMo`` (``elmo``). ``config`` holds the
model's shape; ``generate`` samples sentences from a trained biLM. Saving and loading runs is
the trainer's (:mod:`elmo_tutorial.training.run_folder`).

Nothing here is written for speed: the faster versions of these modules live in
:mod:`elmo_tutorial.fast`, with the same parameters, and are switched on in one place.
"""
