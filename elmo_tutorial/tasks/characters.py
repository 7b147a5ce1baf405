r"""The tagging baseline's character features: a small CNN over each token's characters.

The paper's tagging baselines (its NER model, after Lample et al. 2016, and TagLM, Peters et
al. 2017, for chunking) represent token ``k`` by a pre-trained word vector *and* a vector
computed from its characters, :math:`x_k = [w_k; c_k]`, and add ELMo to that,
:math:`[x_k; \mathrm{ELMo}_k]` (Sec. 3.3). Without :math:`c_k` a tagger over lower-cased word
vectors sees neither capitals nor the spelling of a word it has no vector for, and the gain
from ELMo, whose biLM reads characters, would largely be those, not context.

:class:`TokenChars` computes :math:`c_k`: a small embedding per character, one convolution of
width 3 over the token (``BOW c_1 … c_n EOW``, the ids of :mod:`elmo_tutorial.model.chars`), the
maximum of each filter over the windows inside the token, then ReLU. It is trained with the
tagger. :func:`encode_chars` computes every sentence's character ids once, before training.

Example:
    >>> torch.manual_seed(0) and None
    >>> chars = pad_chars(encode_chars([["Hello", "world"], ["Hi"]]))   # (B, T, C)
    >>> chars.shape
    torch.Size([2, 2, 7])
    >>> TokenChars(n_filters=30)(chars).shape                             # (B, T, F)
    torch.Size([2, 2, 30])
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from elmo_tutorial.fast.char_cnn import conv1d_windows
from elmo_tutorial.model.char_cnn import PAD_ID
from elmo_tutorial.model.chars import N_CHAR_IDS, batch_to_ids

__all__ = ["TokenChars", "encode_chars", "pad_chars"]

GROUP = 256  # tokens per convolution call in TokenChars (bounded memory, few calls)


def encode_chars(sentences: Sequence[Sequence[str]]) -> list[torch.Tensor]:
    """Per sentence its ``(T_i, C_i)`` character ids (``BOW``, bytes, ``EOW``), case kept.

    ``C_i`` is the sentence's longest token (``BOW`` and ``EOW`` included); shorter tokens are
    followed by 0, "no character" (the biLM's ``PAD`` id becomes 0 too), so a token's ids end
    where it ends. Stored as ``int16`` (ids < 262): the splits are kept in memory.
    """
    out = []
    for sentence in sentences:
        ids = batch_to_ids([sentence])[0]  # (T, 50), PAD after EOW
        ids = ids.masked_fill(ids == PAD_ID, 0)
        width = int((ids != 0).sum(-1).max()) if len(sentence) else 0
        out.append(ids[:, :width].to(torch.int16))
    return out


def pad_chars(chars: Sequence[torch.Tensor]) -> torch.Tensor:
    """``B`` tensors ``(T_i, C_i)`` → one ``(B, T, C)`` long tensor, 0 in the padding."""
    batch = torch.zeros(len(chars), max(len(c) for c in chars),
                        max(c.shape[1] for c in chars), dtype=torch.long)
    for i, c in enumerate(chars):
        batch[i, : c.shape[0], : c.shape[1]] = c
    return batch


class TokenChars(nn.Module):
    r"""``c_k``: character embeddings → one convolution → max over the token's windows → ReLU.

    .. math::
        c_k = \mathrm{relu}\bigl(\max_{t \in \text{windows inside token } k}
              (K * E[\text{chars}_k])_t + b\bigr)

    Only windows that lie inside the token count (a token of ``m`` ids, ``BOW`` and ``EOW``
    included, has ``m - width + 1``), so the zeros that pad a short token, or a batch of long
    ones, change nothing. Padded positions (no characters) get zeros.

    Args:
        n_filters: filters, the width of ``c_k``.
        width: characters per window.
        char_dim: the width of a character embedding.

    Shape:
        ``chars`` ``(B, T, C)`` ids from :func:`pad_chars` → ``(B, T, n_filters)``.
    """

    def __init__(self, n_filters: int = 40, width: int = 3, char_dim: int = 16) -> None:
        super().__init__()
        self.n_filters, self.width = n_filters, width
        self.char_embedding = nn.Embedding(N_CHAR_IDS, char_dim, padding_idx=0)
        self.conv = nn.Conv1d(char_dim, n_filters, kernel_size=width)

    def forward(self, chars: torch.Tensor) -> torch.Tensor:
        b, t, _ = chars.shape
        flat = chars.reshape(b * t, -1)  # (N, C)
        lengths = (flat != 0).sum(-1)  # (N,) ids of each token; 0 at padded positions
        out = self.conv.weight.new_zeros(b * t, self.n_filters)  # padded positions stay 0
        # Real tokens only, shortest first, in groups cut to their longest token: one URL in a
        # batch of tweets then widens its own group, not all of them.
        real = (lengths > 0).nonzero().squeeze(1)  # (N_real,)
        real = real[lengths[real].argsort(stable=True)]
        for rows in real.split(GROUP):
            out[rows] = self.features(flat[rows, : max(int(lengths[rows[-1]]), self.width)])
        return out.view(b, t, self.n_filters)  # (B, T, F)

    def features(self, ids: torch.Tensor) -> torch.Tensor:
        """``c_k`` of ``n`` real tokens: ``(n, C)`` ids, ``C`` ≥ ``width`` → ``(n, F)``."""
        lengths = (ids != 0).sum(-1)  # (n,)
        scores = conv1d_windows(self.char_embedding(ids), self.conv)  # (n, C - width + 1, F)
        starts = torch.arange(scores.shape[1])  # (W,)
        # A token shorter than one window still has its first window (zeros fill the rest).
        inside = starts <= (lengths - self.width).clamp(min=0).unsqueeze(1)  # (n, W)
        return torch.relu(scores.masked_fill(~inside.unsqueeze(-1), float("-inf")).amax(1))

    def extra_repr(self) -> str:
        return f"n_filters={self.n_filters}, width={self.width}"
