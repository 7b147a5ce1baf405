r"""Character-based language models: forward, backward, and the biLM of ELMo.

Taught in notebooks 04, 05 and 06.

Peters et al. (2018, Sec. 3.1) train a forward and a backward LM on the same sentences and
maximise the sum of their log likelihoods::

    Σ_k  log p(t_k | t_1..t_{k-1}; Θ_x, Θ→_LSTM, Θ_s) + log p(t_k | t_{k+1}..t_N; Θ_x, Θ←_LSTM, Θ_s)

The token representation ``Θ_x`` (the character CNN) and the softmax ``Θ_s`` are shared by both
directions; each direction has its own LSTM stack. Dropout (bilm-tf: 0.1) is applied to the
input of every LSTM layer and to the top layer's output, during training only (``nn.Dropout``,
its masks drawn from PyTorch's global generator, which the trainer seeds once and checkpoints).

Input sentences already contain ``<S>`` and ``</S>`` (see ``batching.make_lm_batch``); the
forward LM at position ``t`` predicts the word at ``t+1``, the backward LM the word at ``t-1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch import Tensor, nn

from elmo_tutorial.model.batching import LMBatch
from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.chars import check_char_ids
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.model.lstm import LSTMStack
from elmo_tutorial.model.softmax import Softmax


@dataclass
class LMOutput:
    """What a language model's ``forward`` returns.

    Attributes:
        loss: the training objective, forward NLL mean + backward NLL mean (only the one
            direction for :class:`ForwardLM` / :class:`BackwardLM`).
        forward_nll, backward_nll: mean negative log-likelihood per predicted token (nats),
            ``None`` for a direction the model does not have. With ``sampled=True`` in training
            mode they are sampled-softmax losses, not true NLLs.
        n_tokens: number of predicted tokens per direction (the same for both directions on
            ``make_lm_batch`` batches: every real token but one).
    """

    loss: Tensor
    forward_nll: Tensor | None
    backward_nll: Tensor | None
    n_tokens: int

    @property
    def forward_perplexity(self) -> float:
        """``exp(forward_nll)``: the forward LM is as unsure as a uniform choice among this many."""
        return math.exp(self.forward_nll.item())

    @property
    def backward_perplexity(self) -> float:
        """``exp(backward_nll)``."""
        return math.exp(self.backward_nll.item())


class _LanguageModel(nn.Module):
    """Shared body of the three models; ``directions`` says which LSTM stacks exist."""

    directions: tuple[str, ...] = ("forward", "backward")

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        P = config.projection_dim
        self.char_cnn = CharCNN(config)
        for direction in self.directions:
            stack = LSTMStack(
                P, config.lstm_dim, P, config.n_layers,
                cell_clip=config.cell_clip, proj_clip=config.proj_clip,
                use_skip_connections=config.use_skip_connections,
                go_forward=direction == "forward", dropout=config.dropout,
            )
            self.add_module(f"{direction}_lstm", stack)
        self.softmax = Softmax(P, config.vocab_size) if config.vocab_size else None
        self.dropout = nn.Dropout(config.dropout)

    def encode(self, char_ids: Tensor, mask: Tensor | None = None) -> dict:
        """Token embeddings and every LSTM layer's outputs for sentences with ``<S> .. </S>``.

        Args:
            char_ids: the sentences' character ids, checked here with
                :func:`~elmo_tutorial.model.chars.check_char_ids`.
            mask: the mask ``check_char_ids`` returned, from a caller that has checked the ids
                already (``ELMo``); they are then not checked again.

        Shape:
            - char_ids: ``(B, T, 50)``, 0 at padding.
            - Output: ``word_emb`` ``(B, T, P)``, ``mask`` ``(B, T)`` bool, and per direction
              (``forward``, ``backward``) a list of ``n_layers`` tensors ``(B, T, P)``; every
              tensor is zero at padded positions.
        """
        if mask is None:
            mask = check_char_ids(char_ids)  # (B, T)
        word_emb = self.char_cnn(char_ids)  # (B, T, P)
        return self.encode_embeddings(word_emb, mask)

    def encode_embeddings(self, word_emb: Tensor, mask: Tensor) -> dict:
        """Like :meth:`encode`, from token embeddings computed elsewhere (e.g. remembered).

        The token embedding depends on a token's characters only, so a caller that has
        already computed it (``Embedder`` keeps each distinct token's vector) passes it
        here instead of character ids; ``encode(ids)`` equals
        ``encode_embeddings(char_cnn(ids), check_char_ids(ids))``.

        Args:
            word_emb: ``(B, T, P)`` token embeddings, ``<S> .. </S>`` included.
            mask: ``(B, T)`` bool, True at real positions (which come first in each row).
        """
        x = self.dropout(word_emb)  # one mask for the input both directions read
        out = {"word_emb": word_emb, "mask": mask}
        for direction in self.directions:
            stack = getattr(self, f"{direction}_lstm")
            out[direction] = stack(x, mask)  # n_layers × (B, T, P)
        return out

    def forward(self, batch: LMBatch, sampled: bool = False) -> LMOutput:
        """Mean next-word (and previous-word) NLL of a batch.

        Args:
            batch: an ``LMBatch``; targets equal to -100 never contribute.
            sampled: use the sampled softmax (``softmax.num_samples`` candidates) in training
                mode; evaluation (``model.eval()``) always uses the full softmax.
        """
        x, mask = self.token_vectors(batch)  # (B, T, P), (B, T)
        nll, n_tokens = {}, {}
        # Direction by direction, in the order a student writes it (notebook 14). Random
        # draws come in this order.
        for direction in self.directions:
            nll[direction], n_tokens[direction] = self.direction_nll(
                direction, x, mask, batch, sampled)
        return LMOutput(
            loss=sum(nll.values()),
            forward_nll=nll.get("forward"),
            backward_nll=nll.get("backward"),
            n_tokens=n_tokens[self.directions[0]],
        )

    def token_vectors(self, batch: LMBatch) -> tuple[Tensor, Tensor]:
        """The batch's token vectors after dropout, and its mask: what both directions read.

        Shape:
            Output: ``(B, T, P)`` and ``(B, T)`` bool, on the softmax's device.
        """
        if self.softmax is None:
            raise ValueError(
                "this model has no softmax (config.vocab_size == 0), so it cannot score words; "
                "build it with ModelConfig(vocab_size=len(vocab)) to train or evaluate it"
            )
        char_ids = batch.char_ids.to(self.softmax.weight.device)
        mask = check_char_ids(char_ids)  # (B, T)
        return self.dropout(self.char_cnn(char_ids)), mask  # one mask for both directions

    def direction_nll(self, direction: str, x: Tensor, mask: Tensor, batch: LMBatch,
                      sampled: bool = False) -> tuple[Tensor, int]:
        """One direction's mean NLL and its number of targets: its LSTM stack over the token
        vectors ``x`` (B, T, P), dropout on its top layer, the softmax."""
        top = getattr(self, f"{direction}_lstm")(x, mask)[-1]  # (B, T, P)
        top = self.dropout(top)
        targets = getattr(batch, f"{direction}_targets").to(x.device)  # (B, T)
        nll_sum, n = self.softmax(top, targets, sampled=sampled and self.training)
        return nll_sum / max(n, 1), n


class BidirectionalLM(_LanguageModel):
    """ELMo's biLM: a shared character CNN and softmax, a forward and a backward LSTM stack.

    Args:
        config: a ``ModelConfig``; ``vocab_size`` = 0 builds the encoder only (``softmax`` is
            ``None``), which is all ELMo needs.

    Attributes:
        char_cnn: ``CharCNN``; forward_lstm, backward_lstm: ``LSTMStack`` (the latter with
        ``go_forward=False``); softmax: ``Softmax`` or ``None``; dropout: ``nn.Dropout``.

    Example:
        >>> from elmo_tutorial.model.config import MODEL_PRESETS
        >>> from dataclasses import replace
        >>> lm = BidirectionalLM(replace(MODEL_PRESETS["tiny"], vocab_size=100))
        >>> sorted(name for name, _ in lm.named_children())
        ['backward_lstm', 'char_cnn', 'dropout', 'forward_lstm', 'softmax']
    """

    directions = ("forward", "backward")


class ForwardLM(_LanguageModel):
    """The forward half alone: ``char_cnn``, ``forward_lstm``, ``softmax`` (notebook 04)."""

    directions = ("forward",)


class BackwardLM(_LanguageModel):
    """The backward half alone: ``char_cnn``, ``backward_lstm``, ``softmax`` (notebook 05)."""

    directions = ("backward",)


__all__ = ["BackwardLM", "BidirectionalLM", "ForwardLM", "LMOutput"]
