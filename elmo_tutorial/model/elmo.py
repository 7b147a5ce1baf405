r"""ELMo: a task-specific, learned mix of all the layers of a pre-trained biLM (Peters et al. 2018).

Taught in notebook 07 (``07_scalar_mix``).

For token ``k`` the biLM gives ``L + 1`` vectors: the character-based token embedding ``x_k``
(layer 0, duplicated to the width ``2P`` of the others, as AllenNLP does) and, for every LSTM
layer ``j``, the concatenated forward and backward outputs ``h_{k,j} = [→h_{k,j}; ←h_{k,j}]``.
ELMo collapses them with a scalar mix (paper Eq. 1,
:class:`~elmo_tutorial.model.scalar_mix.ScalarMix`):

.. math::
    \mathrm{ELMo}_k = \gamma \sum_{j=0}^{L} s_j \, h_{k,j}, \qquad s = \mathrm{softmax}(w)

The module returns the outputs under the names of the TF-Hub ELMo module (``word_emb``,
``lstm_outputs1``, ``lstm_outputs2``, ``elmo``, ``default``) plus the ``mask``.

Input: ``forward`` takes character ids from ``batch_to_ids``. :meth:`ELMo.embed` takes the two
input forms of the TF-Hub module instead (its *signatures*): ``"default"``, untokenized strings
split on spaces, and ``"tokens"``, token lists padded with ``""`` plus each sentence's length.

Sentence boundaries: the biLM was trained on ``<S> w_1 .. w_n </S>``, so ``ELMo`` inserts them
itself, right after each sentence's *own* last token (not after the padding), and removes them
again from every output unless ``keep_sentence_boundaries=True``.

Stateless: unlike AllenNLP's ``Elmo``, no LSTM state is carried from one call to the next, so a
sentence's vectors depend neither on its batch neighbours nor on what ran before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import torch
from torch import Tensor, nn

from elmo_tutorial.model.chars import BOS_IDS, EOS_IDS, batch_to_ids, check_char_ids, ids_to_mask
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.lm import BidirectionalLM
from elmo_tutorial.model.scalar_mix import ScalarMix


def add_sentence_boundaries(char_ids: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
    """Wrap each sentence as ``<S> w_1 .. w_n </S>``: ``(B, T, 50)`` → ``(B, T + 2, 50)``.

    ``</S>`` goes right after each row's own last token, so rows of different lengths stay
    right-padded. Returns the new ids and their ``(B, T + 2)`` mask.
    """
    B, T, C = char_ids.shape
    lengths = mask.sum(dim=1)  # (B,)
    out = char_ids.new_zeros(B, T + 2, C)
    out[:, 1 : T + 1] = char_ids  # padding rows are all-zero and stay so
    out[:, 0] = char_ids.new_tensor(BOS_IDS)
    out[torch.arange(B, device=char_ids.device), lengths + 1] = char_ids.new_tensor(EOS_IDS)
    steps = torch.arange(T + 2, device=char_ids.device)  # (T + 2,)
    return out, steps < (lengths + 2).unsqueeze(1)  # (B, T + 2, 50), (B, T + 2)


def remove_sentence_boundaries(x: Tensor, mask: Tensor) -> Tensor:
    """Drop ``<S>`` and ``</S>``: ``(B, T + 2, D)`` → ``(B, T, D)``, zero after each sentence.

    ``mask`` is the ``(B, T)`` mask of the sentences *without* boundaries.
    """
    return x[:, 1:-1] * mask.unsqueeze(-1).to(x.dtype)  # </S> falls on a masked position


def _tokens_with_lengths(tokens: Sequence[Sequence[str]], lengths) -> list[list[str]]:
    """The ``"tokens"`` signature: each row's first ``lengths[b]`` tokens (all if ``None``)."""
    if isinstance(tokens, str) or any(isinstance(row, str) for row in tokens):
        raise TypeError('inputs["tokens"] must be a list of token lists, e.g. '
                        '[["the", "cat"], ["hi", ""]]; for untokenized strings use '
                        'signature="default"')
    if lengths is None:  # every token up to the "" padding at the end of its row
        lengths = [next((i for i, t in enumerate(row) if t == ""), len(row)) for row in tokens]
    lengths = [int(n) for n in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]
    if len(lengths) != len(tokens):
        raise ValueError(f'inputs["sequence_len"] has {len(lengths)} lengths for '
                         f"{len(tokens)} sentences: give one length per sentence")
    sentences = []
    for b, (row, n) in enumerate(zip(tokens, lengths, strict=True)):
        if not 0 <= n <= len(row):
            raise ValueError(f'inputs["sequence_len"][{b}] = {n}, but sentence {b} has '
                             f"{len(row)} tokens: a length must lie in [0, {len(row)}]")
        if "" in row[:n]:
            raise ValueError(f'sentence {b} has an empty token "" at position '
                             f'{list(row[:n]).index("")}, within its length {n}: "" is padding '
                             "and belongs after the sentence's last token")
        sentences.append(list(row[:n]))
    return sentences


def hub_char_ids(inputs, signature: str = "default") -> Tensor:
    """Character ids ``(B, T, 50)`` from either TF-Hub input signature.

    Args:
        inputs: for ``"default"``, a list of untokenized sentences, each split on spaces
            (runs of spaces count as one, as ``tf.string_split`` does); for ``"tokens"``,
            ``{"tokens": B token lists, "sequence_len": B lengths}``: tokens past a
            sentence's length are ignored (TF-Hub pads rows with ``""``). Without
            ``"sequence_len"`` each row ends at its first ``""``.
        signature: ``"default"`` or ``"tokens"``.

    Raises:
        ValueError / TypeError: for another signature, inputs of the other signature's form,
            a number of lengths that differs from the number of sentences, a length outside
            ``[0, len(row)]``, or ``""`` within a sentence's length.
    """
    if signature == "default":
        if isinstance(inputs, str | Mapping) or not all(isinstance(s, str) for s in inputs):
            raise TypeError('signature="default" takes a list of untokenized sentences, e.g. '
                            '["the cat is on the mat"]; for token lists use signature="tokens"')
        sentences = [[token for token in s.split(" ") if token] for s in inputs]
    elif signature == "tokens":
        if not isinstance(inputs, Mapping) or "tokens" not in inputs:
            raise TypeError('signature="tokens" takes {"tokens": token lists, "sequence_len": '
                            "lengths}, as TF-Hub's ELMo module does")
        sentences = _tokens_with_lengths(inputs["tokens"], inputs.get("sequence_len"))
    else:
        raise ValueError(f'signature must be "default" or "tokens" (the TF-Hub module\'s '
                         f"two), got {signature!r}")
    return batch_to_ids(sentences)


class ELMo(nn.Module):
    r"""Deep contextualised word representations from a bidirectional language model.

    Args:
        config: the biLM's ``ModelConfig``. The softmax is not built (ELMo needs only the
            encoder) and the biLM runs without its training dropout, as in AllenNLP.
        do_layer_norm: normalise each layer (masked, whole batch) before mixing.
        dropout: dropout on the ``elmo`` output during training (AllenNLP's default is 0.5
            for downstream models; 0 here so that outputs are deterministic by default).
        keep_sentence_boundaries: keep ``<S>``/``</S>`` in every ``(B, T, ·)`` output, which
            then has ``T + 2`` positions.
        scalar_mix_parameters: fixed, un-normalised weights ``w`` for the mix (e.g.
            ``[-9e10, -9e10, 1]`` for the top layer only); ``None`` learns them from zeros.

    Attributes:
        bilm: the ``BidirectionalLM`` encoder (character CNN and two LSTM stacks).
        scalar_mix: ``ScalarMix(n_layers + 1)`` with weights ``s`` and scale ``gamma``.
        config: the encoder's ``ModelConfig`` (``vocab_size`` 0, ``dropout`` 0).

    Shape:
        - Input: ``(B, T, 50)`` character ids from ``batch_to_ids`` (no ``<S>``/``</S>``).
        - Output: a dict with ``word_emb (B, T, P)``, ``lstm_outputs1 (B, T, 2P)``,
          ``lstm_outputs2 (B, T, 2P)`` (one ``lstm_outputs{j}`` per layer), ``elmo (B, T, 2P)``,
          ``default (B, 2P)`` (mean of ``elmo`` over each sentence's real tokens; 0 for an
          empty sentence) and ``mask (B, T)`` bool. Padded positions are zero.

    Example:
        >>> from elmo_tutorial import batch_to_ids
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> elmo = ELMo(MODEL_PRESETS["tiny"]).eval()
        >>> out = elmo(batch_to_ids([["I", "went", "to", "the", "bank"], ["Hi"]]))
        >>> tuple(out["elmo"].shape), tuple(out["default"].shape)
        ((2, 5, 128), (2, 128))
    """

    def __init__(
        self,
        config: ModelConfig,
        do_layer_norm: bool = False,
        dropout: float = 0.0,
        keep_sentence_boundaries: bool = False,
        scalar_mix_parameters: Sequence[float] | None = None,
    ) -> None:
        super().__init__()
        self.config = replace(config, vocab_size=0, dropout=0.0)
        self.keep_sentence_boundaries = keep_sentence_boundaries
        self.bilm = BidirectionalLM(self.config)
        self.scalar_mix = ScalarMix(
            self.config.n_layers + 1,
            do_layer_norm=do_layer_norm,
            initial_scalar_parameters=scalar_mix_parameters,
            trainable=scalar_mix_parameters is None,
        )
        self.dropout = nn.Dropout(dropout)

    def layers(self, char_ids: Tensor) -> tuple[list[Tensor], Tensor, Tensor]:
        """Run the biLM on sentences wrapped in ``<S> .. </S>``.

        Returns:
            ``(layers, word_emb, mask)``: ``L + 1`` tensors ``(B, T + 2, 2P)`` (layer 0 is the
            token embedding twice), the token embedding ``(B, T + 2, P)`` and the mask
            ``(B, T + 2)``, all including the boundaries.
        """
        mask = check_char_ids(char_ids)  # the one check of the user's ids, (B, T)
        ids, mask = add_sentence_boundaries(char_ids, mask)  # (B, T + 2, 50), (B, T + 2)
        return self.layers_from_embeddings(self.bilm.char_cnn(ids), mask)  # (B, T + 2, P)

    def layers_from_embeddings(
        self, word_emb: Tensor, mask: Tensor
    ) -> tuple[list[Tensor], Tensor, Tensor]:
        """:meth:`layers` from token embeddings computed elsewhere, e.g. by an edited CNN.

        Args:
            word_emb: ``(B, T + 2, P)`` token embeddings of ``<S> w_1 .. w_n </S>``, zero at
                padding: what ``bilm.char_cnn`` gives for the ids with boundaries.
            mask: ``(B, T + 2)`` bool, True at ``<S>``, the tokens and ``</S>``.

        Returns:
            What :meth:`layers` returns.
        """
        out = self.bilm.encode_embeddings(word_emb, mask)
        layers = [torch.cat([word_emb, word_emb], dim=-1)]  # (B, T + 2, 2P)
        for h_forward, h_backward in zip(out["forward"], out["backward"], strict=True):
            layers.append(torch.cat([h_forward, h_backward], dim=-1))  # (B, T + 2, 2P)
        return layers, word_emb, mask

    def forward(self, char_ids: Tensor) -> dict[str, Tensor]:
        layers, word_emb, mask_bos_eos = self.layers(char_ids)
        # Mixed with the boundaries in place, as AllenNLP does: with do_layer_norm the layer
        # statistics include <S> and </S>.
        elmo = self.dropout(self.scalar_mix(layers, mask_bos_eos))  # (B, T + 2, 2P)
        elmo = elmo * mask_bos_eos.unsqueeze(-1).to(elmo.dtype)  # layer norm moves padding
        out = {"word_emb": word_emb}
        out.update({f"lstm_outputs{j}": h for j, h in enumerate(layers[1:], start=1)})
        out["elmo"] = elmo
        mask = ids_to_mask(char_ids)  # (B, T): the sentences' own tokens
        elmo_tokens = remove_sentence_boundaries(elmo, mask)  # (B, T, 2P)
        count = mask.sum(dim=1, keepdim=True).clamp(min=1).to(elmo.dtype)  # (B, 1)
        default = elmo_tokens.sum(dim=1) / count  # (B, 2P): mean over real tokens only
        if self.keep_sentence_boundaries:
            out["mask"] = mask_bos_eos
        else:
            out = {k: remove_sentence_boundaries(v, mask) for k, v in out.items()}
            out["mask"] = mask
        out["default"] = default
        return out

    def embed(self, inputs, signature: str = "default") -> dict[str, Tensor]:
        """Run on either TF-Hub input signature (see :func:`hub_char_ids`) on the model's device.

        ``elmo.embed(["the cat is on the mat", "dogs are in the fog"])`` and
        ``elmo.embed({"tokens": [["the", "cat", "is", "on", "the", "mat"],
        ["dogs", "are", "in", "the", "fog", ""]], "sequence_len": [6, 5]}, signature="tokens")``
        return the same vectors; outputs as in :meth:`forward`.
        """
        device = next(self.parameters()).device
        return self(hub_char_ids(inputs, signature).to(device))


__all__ = ["ELMo", "add_sentence_boundaries", "hub_char_ids", "remove_sentence_boundaries"]
