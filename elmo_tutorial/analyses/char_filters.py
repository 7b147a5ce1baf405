"""What a character filter responds to: each filter's best window in each word of a list.

A filter of :class:`~elmo_tutorial.model.char_cnn.CharCNN` scores every window of its width and
max-pooling keeps the best one: over a word list, the top words and their windows show which
character n-grams it detects (notebook 03).

Example:
    >>> import torch
    >>> from elmo_tutorial.model.char_cnn import CharCNN
    >>> from elmo_tutorial.model.config import ModelConfig
    >>> _ = torch.manual_seed(0)
    >>> cnn = CharCNN(ModelConfig(char_embed_dim=4, filters=((2, 3),), projection_dim=3))
    >>> responses = filter_responses(cnn, ["bank", "banks"])
    >>> responses.scores.shape                       # (words, filters)
    torch.Size([2, 3])
    >>> len(responses.top(0, k=2)[0][1])             # (word, n-gram, score): a 2-gram
    2
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.chars import MAX_CHARS, batch_to_ids

__all__ = ["FilterResponses", "filter_responses", "window_text"]

BOW_MARK, EOW_MARK, PAD_MARK = "^", "$", "·"  # how word start, word end and padding print


def window_text(word: str, start: int, width: int) -> str:
    """The characters of window ``start`` of ``word`` as the CNN sees them: ``^``, the UTF-8
    bytes (non-ASCII as ``?``), ``$`` and padding (``·``).

    Example:
        >>> window_text("sing", 3, 3), window_text("sing", 0, 2), window_text("go", 2, 3)
        ('ng$', '^s', 'o$·')
    """
    body = "".join(chr(b) if b < 128 else "?" for b in word.encode("utf-8")[: MAX_CHARS - 2])
    marks = BOW_MARK + body + EOW_MARK
    marks += PAD_MARK * (MAX_CHARS - len(marks))
    return marks[start : start + width]


@dataclass
class FilterResponses:
    """Each filter's maximum over the windows of each word, and where it was.

    Attributes:
        scores: ``(N, F)`` maxima before the activation, for ``N`` ``words`` and the CNN's
            ``F`` filters in the order of its pooled features; ``starts``: ``(N, F)`` their
            windows; ``widths``: ``(F,)``.
    """

    words: list[str]
    scores: torch.Tensor
    starts: torch.Tensor
    widths: torch.Tensor

    def ngram(self, word_index: int, filter_index: int) -> str:
        """The n-gram that gave filter ``filter_index`` its maximum on word ``word_index``."""
        return window_text(self.words[word_index], int(self.starts[word_index, filter_index]),
                           int(self.widths[filter_index]))

    def top(self, filter_index: int, k: int = 10) -> list[tuple[str, str, float]]:
        """The ``k`` words that fire the filter most: ``(word, n-gram, score)``, best first."""
        order = self.scores[:, filter_index].argsort(descending=True)[:k]
        return [(self.words[i], self.ngram(i, filter_index), float(self.scores[i, filter_index]))
                for i in order.tolist()]

    def favourite_ngram(self, filter_index: int, k: int = 50) -> tuple[str, int]:
        """The n-gram most often responsible among the top ``k`` words, and how often."""
        counts = Counter(ngram for _, ngram, _ in self.top(filter_index, k))
        return counts.most_common(1)[0]


@torch.no_grad()
def filter_responses(cnn: CharCNN, words: Sequence[str], batch_size: int = 1024) -> FilterResponses:
    """Run every filter of ``cnn`` over every word; keep each maximum and its window: exactly
    what ``CharCNN`` max-pools, over all 50 positions (padding can win; notebook 03 shows why).
    """
    words = list(words)
    if not words:
        raise ValueError("filter_responses needs at least one word")
    device = cnn.char_embedding.weight.device
    widths = torch.cat([torch.full((conv.out_channels,), conv.kernel_size[0])
                        for conv in cnn.convs])
    scores, starts = [], []
    for first in range(0, len(words), batch_size):
        ids = batch_to_ids([words[first : first + batch_size]])[0].to(device)  # (n, 50)
        chars = cnn.char_embedding(ids).transpose(1, 2)  # (n, E, 50)
        best = [F.conv1d(chars, conv.weight, conv.bias).max(dim=-1) for conv in cnn.convs]
        scores.append(torch.cat([b.values for b in best], dim=-1).cpu())  # (n, F)
        starts.append(torch.cat([b.indices for b in best], dim=-1).cpu())  # (n, F)
    return FilterResponses(words, torch.cat(scores), torch.cat(starts), widths)
