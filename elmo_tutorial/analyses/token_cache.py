"""Each token's layer-0 vector, computed once by the biLM's character CNN and remembered.

A token's layer-0 vector depends on its characters only, so the
:class:`~elmo_tutorial.analyses.embedder.Embedder` computes it once per distinct token and
keeps it across calls. It depends on the character CNN's weights too: a remembered vector is
only right while those weights are the ones it was computed with. PyTorch counts every
in-place write to a tensor (an optimiser step, ``copy_``, ``+=``, ``load_state_dict``) in the
tensor's version; the cache notes the version of every weight with its vectors and drops them
when one has changed, so vectors of old weights are never served.

Example:
    >>> from elmo_tutorial.model.char_cnn import CharCNN
    >>> from elmo_tutorial.model.config import MODEL_PRESETS
    >>> cache = TokenCache(CharCNN(MODEL_PRESETS["tiny"]), max_size=100)
    >>> cache.table(["bank", "river", "bank"]).shape, len(cache.vectors)
    (torch.Size([3, 64]), 2)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import torch
from torch import nn

from elmo_tutorial.model.chars import word_to_char_ids

__all__ = ["TokenCache"]


class TokenCache:
    """Each token's layer-0 vector, computed once by the character CNN and remembered.

    Tokens are keyed by their string. Once ``max_size`` tokens are stored, new ones are
    computed but not stored (the tokens of a text come in order of first use, so the frequent
    words, which appear early, are kept). ``max_size`` 0 remembers nothing between calls.
    A vector depends on the CNN's weights too: when any of them has changed since the vectors
    were computed (trained, edited in place, loaded with ``load_state_dict``), the remembered
    vectors are dropped before the next call uses them.

    Args:
        char_cnn: the model's ``CharCNN``; only its ``embed_tokens`` is called.
        max_size: how many tokens to remember.
    """

    def __init__(self, char_cnn: nn.Module, max_size: int) -> None:
        self.char_cnn = char_cnn
        self.max_size = max_size
        self.vectors: dict[str, torch.Tensor] = {}
        self._weights = self._weights_now()  # what the remembered vectors were computed with

    def _weights_now(self) -> tuple:
        """Which tensors the CNN holds and how often each was changed in place: PyTorch
        counts every in-place write (an optimiser step, ``copy_``, ``+=``) in ``_version``.
        A tensor made under ``torch.inference_mode`` has no such count: its bytes stand in."""
        return tuple((id(t), t.data_ptr(), _bytes_digest(t) if t.is_inference() else t._version)
                     for t in (*self.char_cnn.parameters(), *self.char_cnn.buffers()))

    def table(self, tokens: Sequence[str], chunk: int = 2048) -> torch.Tensor:
        """The vectors of distinct, valid ``tokens``: ``(N, P)``, computing only new ones,
        ``chunk`` tokens per call of the character CNN."""
        weights = self._weights_now()
        if weights != self._weights:  # vectors of other weights must not be served
            self.vectors.clear()
            self._weights = weights
        new = [t for t in tokens if t not in self.vectors]
        fresh: dict[str, torch.Tensor] = {}
        for start in range(0, len(new), chunk):
            part = new[start : start + chunk]
            ids = torch.tensor([word_to_char_ids(t) for t in part])  # (n, 50)
            ids = ids.to(self.char_cnn.projection.weight.device)
            fresh.update(zip(part, self.char_cnn.embed_tokens(ids), strict=True))  # n × (P,)
        room = max(self.max_size - len(self.vectors), 0)
        self.vectors.update(list(fresh.items())[:room])
        return torch.stack([self.vectors[t] if t in self.vectors else fresh[t] for t in tokens])


def _bytes_digest(tensor: torch.Tensor) -> str:
    """sha256 of a tensor's bytes (a few ms for a character CNN's largest matrix)."""
    data = tensor.detach().cpu().contiguous().view(torch.uint8).numpy()
    return hashlib.sha256(data.tobytes()).hexdigest()
