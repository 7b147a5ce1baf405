r"""ELMo inside a task model (Peters et al. 2018, Sec. 3.3): one BiLSTM for sentences and tokens.

The paper's recipe: freeze the biLM, compute ``ELMo_k`` for every token with a task-specific
scalar mix (Eq. 1), concatenate it with the model's own token vector at the **input** of its RNN,
:math:`[x_k; \mathrm{ELMo}_k]`, optionally also at its **output**, :math:`[h_k; \mathrm{ELMo}'_k]`
with a mix of its own (Table 3), and regularise with dropout and :math:`λ \lVert w \rVert^2`.

Dropout acts **once** on the whole input and once on the whole output, as in AllenNLP's
reference configurations (a dropout on ELMo and then the shared one would drop ELMo's units
twice: 0.5, then 0.3, keeps 35 % of them); the mix has no layer norm, as there.

Why characters :math:`c_k` (:class:`TokenChars`) beside the word vector, :math:`x_k = [w_k; c_k]`:
the paper's tagging baselines (Lample et al. 2016; TagLM) have them; without them a tagger over
lower-cased word vectors sees neither capitals nor spelling, and the gain from ELMo, whose biLM
reads characters, would largely be those, not context.

Example:
    >>> torch.manual_seed(0) and None
    >>> chars = pad_chars(encode_chars([["Hello", "world"], ["Hi"]]))   # (B, T, C)
    >>> chars.shape
    torch.Size([2, 2, 7])
    >>> TokenChars(n_filters=30)(chars).shape                             # (B, T, F)
    torch.Size([2, 2, 30])

    >>> torch.manual_seed(0) and None
    >>> model = TaskModel(torch.randn(10, 8), n_classes=5, task="classify",
    ...                   elmo_layers=3, elmo_dim=16, elmo_at=("input", "output"))
    >>> words = torch.tensor([[3, 4, 0], [5, 0, 0]])
    >>> mask = torch.tensor([[1, 1, 1], [1, 0, 0]]).bool()
    >>> layers = torch.randn(2, 3, 3, 16)                      # (B, T, L + 1, D)
    >>> model(words, mask, layers).shape                       # one score per class and sentence
    torch.Size([2, 5])
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from elmo_tutorial.fast.char_cnn import conv1d_windows
from elmo_tutorial.model.char_cnn import PAD_ID
from elmo_tutorial.model.chars import N_CHAR_IDS, batch_to_ids
from elmo_tutorial.model.scalar_mix import ScalarMix

__all__ = ["ELMO_PLACES", "TaskModel", "TokenChars", "encode_chars", "pad_chars"]

ELMO_PLACES = ("input", "output")

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

    Only windows inside the token count (``m - width + 1`` of ``m`` ids, ``BOW`` and ``EOW``
    included), so padding changes nothing; padded positions get zeros. ``n_filters`` windows of
    ``width`` characters over ``char_dim``-wide embeddings: ``chars`` ``(B, T, C)`` ids
    (:func:`pad_chars`) → ``(B, T, n_filters)``.
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


class TaskModel(nn.Module):
    r"""A BiLSTM tagger or sentence classifier over static word vectors, optionally with ELMo.

    .. math::
        x_k = [w_k; c_k], \quad x'_k = [x_k; \mathrm{ELMo}^{in}_k], \quad
        h_k = \mathrm{BiLSTM}(x')_k, \quad h'_k = [h_k; \mathrm{ELMo}^{out}_k]

        \text{tag: } \mathrm{softmax}(W h'_k), \qquad
        \text{classify: } \mathrm{softmax}(W [\mathrm{mean}_k h'_k; \max_k h'_k])

    Args:
        word_vectors: ``(V, d)`` pre-trained static vectors, frozen. Row 0 is ``<UNK>``: it is
            the one trained vector (words without a pre-trained vector share it).
        n_classes: tags (``task="tag"``) or sentence labels (``task="classify"``).
        task: ``"tag"`` (a score per token) or ``"classify"`` (a score per sentence).
        elmo_layers: ``L + 1``, the biLM layers mixed; 0 for the baseline.
        elmo_dim: the width ``2P`` of a biLM layer.
        elmo_at: where ELMo is concatenated: a subset of ``("input", "output")``, each place
            with its own :class:`ScalarMix`; empty for the baseline.
        hidden_size: LSTM cells per direction.
        dropout: on the LSTM's whole input and whole output (ELMo included), once each.
        do_layer_norm: layer-normalise the biLM's layers inside the mix.
        char_filters: the width of the character features ``c_k`` (0: none, ``x_k = w_k``;
            else ``self.chars`` is their :class:`TokenChars`).

    Shape:
        ``words`` ``(B, T)`` row ids, ``mask`` ``(B, T)`` True at real tokens, ``layers``
        ``(B, T, L + 1, D)`` (float16 or float32; ``None`` for the baseline), ``chars``
        ``(B, T, C)`` character ids (:func:`pad_chars`; only with ``char_filters``) → logits
        ``(B, T, n_classes)`` (tag) or ``(B, n_classes)`` (classify).
    """

    def __init__(self, word_vectors: torch.Tensor, n_classes: int, task: str = "classify",
                 elmo_layers: int = 0, elmo_dim: int = 0, elmo_at: tuple[str, ...] = (),
                 hidden_size: int = 64, dropout: float = 0.5, do_layer_norm: bool = False,
                 char_filters: int = 0) -> None:
        super().__init__()
        if task not in ("tag", "classify"):
            raise ValueError(f"task must be 'tag' or 'classify', got {task!r}")
        unknown = set(elmo_at) - set(ELMO_PLACES)
        if unknown or (elmo_at and elmo_layers < 1):
            raise ValueError(f"elmo_at must be a subset of {ELMO_PLACES} (got {elmo_at}) and "
                             "needs elmo_layers ≥ 1 and elmo_dim")
        self.task, self.elmo_at = task, tuple(p for p in ELMO_PLACES if p in elmo_at)
        self.words = nn.Embedding.from_pretrained(word_vectors.float(), freeze=True)
        self.unk = nn.Parameter(torch.zeros(word_vectors.shape[1]))  # the trained <UNK> row
        self.mixes = nn.ModuleDict({place: ScalarMix(elmo_layers, do_layer_norm=do_layer_norm)
                                    for place in self.elmo_at})
        self.chars = TokenChars(char_filters) if char_filters else None
        self.dropout = nn.Dropout(dropout)
        input_dim = (word_vectors.shape[1] + char_filters
                     + (elmo_dim if "input" in self.elmo_at else 0))
        self.lstm = nn.LSTM(input_dim, hidden_size, batch_first=True, bidirectional=True)
        output_dim = 2 * hidden_size + (elmo_dim if "output" in self.elmo_at else 0)
        self.output = nn.Linear(output_dim * (2 if task == "classify" else 1), n_classes)

    def elmo(self, place: str, layers: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """``ELMo_k`` for one place: the place's scalar mix of the layers. ``(B, T, D)``."""
        return self.mixes[place](list(layers.float().unbind(2)), mask)  # L+1 × (B,T,D) → (B,T,D)

    def penalty(self) -> torch.Tensor:
        """``Σ ‖w‖²`` over the mixes (``λ`` times this is added to the loss); 0 without ELMo."""
        return sum((mix.penalty() for mix in self.mixes.values()), torch.zeros(()))

    def forward(self, words: torch.Tensor, mask: torch.Tensor,
                layers: torch.Tensor | None = None,
                chars: torch.Tensor | None = None) -> torch.Tensor:
        x = self.words(words)  # (B, T, d)
        x = torch.where((words == 0).unsqueeze(-1), self.unk, x)  # <UNK> gets the trained vector
        if self.chars is not None:
            if chars is None:
                raise ValueError("this model reads characters (char_filters > 0): pass chars")
            x = torch.cat([x, self.chars(chars)], dim=-1)  # x_k = [w_k; c_k], (B, T, d + F)
        if "input" in self.elmo_at:
            x = torch.cat([x, self.elmo("input", layers, mask)], dim=-1)  # (B, T, d + D)
        lengths = mask.sum(1).cpu()  # (B,)
        packed = pack_padded_sequence(self.dropout(x), lengths, batch_first=True,
                                      enforce_sorted=False)
        h, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True,
                                   total_length=mask.shape[1])  # (B, T, 2H), 0 at padding
        if "output" in self.elmo_at:
            h = torch.cat([h, self.elmo("output", layers, mask)], dim=-1)  # (B, T, 2H + D)
        h = self.dropout(h)
        if self.task == "tag":
            return self.output(h)  # (B, T, n_classes)
        keep = mask.unsqueeze(-1)  # (B, T, 1): padding stays out of both pools
        mean = (h * keep).sum(1) / keep.sum(1)  # (B, H')
        top = h.masked_fill(~keep, float("-inf")).max(1).values  # (B, H')
        return self.output(torch.cat([mean, top], dim=-1))  # (B, n_classes)

    def mix_weights(self) -> dict[str, list[float]]:
        """``softmax(w)`` of each place's mix (the paper's Figure 2)."""
        return {place: mix.weights.tolist() for place, mix in self.mixes.items()}

    def extra_repr(self) -> str:
        return f"task={self.task!r}, elmo_at={self.elmo_at}, chars={self.chars is not None}"
