"""Self-checks for notebooks 02 and 03 (characters and the character CNN): character ids back
to words, LM targets, conv + max-pool, parameter counts, highway."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from elmo_tutorial.checks._core import CheckFailed, assert_close, check, forbidding, not_none
from elmo_tutorial.fast.char_cnn import conv1d_max, conv1d_windows
from elmo_tutorial.model import batching
from elmo_tutorial.model.char_cnn import CharCNN, Highway
from elmo_tutorial.model.chars import (
    BOS_TOKEN,
    EOS_TOKEN,
    MAX_CHARS,
    char_ids_to_word,
    word_to_char_ids,
)
from elmo_tutorial.model.config import MODEL_PRESETS, ModelConfig
from elmo_tutorial.model.vocab import Vocabulary
from elmo_tutorial.training import cost

__all__ = ["check_char_cnn_parameters", "check_char_ids_to_word", "check_conv_max_pool",
           "check_highway_layer", "check_lm_targets"]

# Plain ASCII, the two boundaries, two-byte and three-byte UTF-8, a 4-byte emoji, a word that
# is cut at 48 bytes, and one that is cut in the middle of a multi-byte character.
_WORDS = ["Hi", "the", "<S>", "</S>", "café", "日本", "naïve🙂", "a" * 60,
          "x" + "é" * 30, "<S>x", "S", "0"]


def _decode_hint(ids: list[int], got, expected) -> str:
    if expected is None:
        return ("A row of zeros is a position with no token (batch padding): return None, "
                "not a string.")
    if expected in (BOS_TOKEN, EOS_TOKEN):
        return (f"This row is the boundary token {expected!r}: BOW, then BOS (257) or EOS "
                "(258), then EOW, after the +1 shift. Return the string '<S>' or '</S>'.")
    if isinstance(got, str) and len(got) == len(expected) and all(
            ord(g) == ord(e) + 1 for g, e in zip(got, expected, strict=True)):
        return "Every character is one too far: subtract 1 from every id first."
    if isinstance(got, str) and not expected.isascii() and got != expected:
        return ("Decode the bytes together, bytes(values).decode('utf-8', errors='replace'): one "
                "character can take 2 to 4 bytes, so chr() of each byte gives mojibake.")
    return ("Subtract 1 from every id, keep the values between BOW (258) and the first EOW "
            "(259), and decode them as UTF-8 bytes.")


@check
def check_char_ids_to_word(fn: Callable[[list[int]], str | None]) -> str:
    """``fn(ids)``, given one row of 50 character ids, must return the token it encodes, as
    :func:`elmo_tutorial.model.chars.char_ids_to_word`: ``None`` for a row of zeros, ``'<S>'`` or
    ``'</S>'`` for the boundaries, else the decoded UTF-8 bytes."""
    rows = [word_to_char_ids(word) for word in _WORDS] + [[0] * MAX_CHARS]
    for ids in rows:
        expected = char_ids_to_word(ids)
        try:
            with forbidding(fn, char_ids_to_word, instead=(
                    "undo the +1 shift and decode the bytes between BOW and EOW yourself")):
                got = fn(list(ids))
        except (IndexError, ValueError, UnicodeDecodeError) as error:
            raise CheckFailed(
                f"your function raised {type(error).__name__}: {error} on the ids "
                f"{ids[:8]}... (the token {expected!r}). {_decode_hint(ids, None, expected)}"
            ) from None
        if got != expected:
            raise CheckFailed(f"ids {ids[:8]}...: got {got!r}, expected {expected!r}. "
                              f"{_decode_hint(ids, got, expected)}")
    return (f"char ids back to words: {len(rows)} rows (ASCII, multi-byte UTF-8, <S>/</S>, "
            "cut at 48 bytes, a padding row)")


# Padded batches whose targets are known (make_lm_batch's): lengths vary, so padding sits at
# the end of the shorter rows, and one sentence is a single word (<S> w </S>).
_TARGET_BATCHES = ([["We", "the", "people", "."], ["Hi", "!"]],
                   [["a"], ["b", "c", "d", "e", "f"], ["g", "h"]],
                   [["x", "y", "z"]])


@check
def check_lm_targets(fn: Callable[[torch.Tensor, torch.Tensor],
                                  tuple[torch.Tensor, torch.Tensor]]) -> str:
    """``fn(word_ids, mask)``, given a padded batch of ``<S> w1 .. wn </S>`` sentences (B, T),
    must return :func:`~elmo_tutorial.model.batching.make_lm_batch`'s (forward targets, backward
    targets), each ``(B, T)``, -100 wherever there is nothing to predict."""
    for sentences in _TARGET_BATCHES:
        vocab = Vocabulary.from_sentences(sentences)
        batch = batching.make_lm_batch(sentences, vocab)
        with forbidding(fn, (batching, "make_lm_batch"), instead=(
                "shift the word ids yourself and put -100 where the mask says there is no "
                "word to predict")):
            got = fn(batch.word_ids.clone(), batch.mask.clone())
        not_none(got, "your function", "the pair (forward targets, backward targets)")
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise CheckFailed(f"got {type(got).__name__}: return two (B, T) tensors, "
                              "(forward targets, backward targets).")
        lengths = batch.mask.sum(1).tolist()
        for name, mine, expected, hint in (
            ("forward", got[0], batch.forward_targets,
             "the forward LM at position t predicts the word at t+1; where position t+1 is "
             "padding (so at </S>) there is nothing to predict: -100."),
            ("backward", got[1], batch.backward_targets,
             "the backward LM at position t predicts the word at t-1; at <S> (t = 0) and at "
             "every padded position there is nothing to predict: -100."),
        ):
            assert_close(mine, expected, f"{name} targets for sentences of {lengths} positions",
                         atol=0, hint=hint)
    return ("forward and backward LM targets of padded batches are right, -100 wherever there "
            "is nothing to predict")


PARTS = ("char embeddings", "convolutions", "highway", "projection")


def _module_counts(config: ModelConfig) -> dict[str, int]:
    """Parameters of each part of ``CharCNN(config)``, counted from the module itself."""
    cnn = CharCNN(config)
    modules = {"char embeddings": cnn.char_embedding, "convolutions": cnn.convs,
               "highway": cnn.highway, "projection": cnn.projection}
    return {part: sum(p.numel() for p in module.parameters()) for part, module in modules.items()}


def _configs():
    """The paper's encoder, the shipped tiny model's, and two that move one setting each."""
    yield "the paper's config", ModelConfig()
    yield "the tiny model's config", MODEL_PRESETS["tiny"]
    yield "no highway layer", ModelConfig(n_highway=0, filters=((2, 10), (5, 30)),
                                          projection_dim=20, lstm_dim=20)
    yield "an odd config", ModelConfig(char_embed_dim=3, filters=((1, 4), (6, 7)), n_highway=3,
                                       projection_dim=5, lstm_dim=5)


_HINTS = {
    "char embeddings": "one E-vector per character id: n_characters (262) rows of E numbers.",
    "convolutions": "a width-w conv with `count` filters holds count × E × w weights plus "
                    "count biases; sum over the widths.",
    "highway": "each highway layer is one nn.Linear(F, 2F): 2F × F weights and 2F biases "
               "(the transform and the gate), F = total number of filters; times n_highway.",
    "projection": "nn.Linear(F, P): F × P weights and P biases.",
}


@check
def check_char_cnn_parameters(fn: Callable[[ModelConfig], dict]) -> str:
    """``fn(config)`` must return the parameter count of each of the :data:`PARTS` of
    ``CharCNN(config)``, worked out from the config alone (without ``CharCNN(...)`` or
    :func:`elmo_tutorial.training.cost.parameter_counts`), on four configs."""
    for name, config in _configs():
        expected = _module_counts(config)
        with forbidding(fn, (CharCNN, "__init__"), cost.parameter_counts, instead=(
                "work each count out from the config's fields")):
            got = fn(config)
        not_none(got, "your function", f"a dict with the keys {list(PARTS)}")
        if not isinstance(got, dict) or set(got) != set(PARTS):
            keys = sorted(got) if isinstance(got, dict) else type(got).__name__
            raise CheckFailed(f"return a dict with exactly the keys {list(PARTS)}, got {keys}")
        for part in PARTS:
            if not isinstance(got[part], int | float) or int(got[part]) != expected[part]:
                raise CheckFailed(
                    f"{name}: {part} has {expected[part]:,} parameters, you counted "
                    f"{got[part]!r}. Hint: {_HINTS[part]}")
    return ("parameter counts agree with CharCNN for the paper's, the tiny model's and two "
            "other configs")


# The convolutions a student could call instead of scoring the windows: conv2d or conv3d on an
# input with a dimension of 1 added computes exactly conv1d's windows.
CONVOLUTIONS = [(F, "conv1d"), (torch, "conv1d"), (F, "conv2d"), (torch, "conv2d"),
                (F, "conv3d"), (torch, "conv3d"), (torch, "convolution"), (F, "conv_tbc"),
                (torch, "conv_tbc")]


@check
def check_conv_max_pool(fn: Callable[..., torch.Tensor]) -> str:
    """``fn(x, weight, bias)``, given character embeddings ``x`` (N, E, C) and one width's filters
    ``weight`` (count, E, w), ``bias`` (count,), must return each filter's maximum over the
    windows, (N, count), before the activation, without PyTorch's convolutions
    (:data:`CONVOLUTIONS`) or the package's."""
    generator = torch.Generator().manual_seed(3)
    for width in (1, 3, 5):
        x = torch.randn(4, 6, 12, generator=generator)
        weight = torch.randn(5, 6, width, generator=generator)
        bias = torch.randn(5, generator=generator)
        bias[:2] -= 40.0  # two filters that fire nowhere: every window scores below 0
        expected = F.conv1d(x, weight, bias).amax(dim=-1)
        with forbidding(fn, *CONVOLUTIONS, conv1d_windows, conv1d_max, instead=(
                "score every window yourself (x.unfold gives the windows)")):
            got = fn(x.clone(), weight.clone(), bias.clone())
        if isinstance(got, torch.Tensor) and got.shape == (4, 5, 12 - width + 1):
            raise CheckFailed(f"Got one value per window, shape {tuple(got.shape)}; keep only "
                              "each filter's maximum over the windows: .amax(dim=-1).")
        if (isinstance(got, torch.Tensor) and got.shape == expected.shape
                and torch.allclose(got.float(), torch.relu(expected), atol=1e-4)):
            raise CheckFailed("Your maxima are never negative: a ReLU crept in (before or after "
                              "the max, it is the same thing). Return the pooled scores before "
                              "the activation; the encoder applies the ReLU afterwards.")
        assert_close(got, expected, f"conv + max-pool with width {width}", atol=1e-4, hint=(
            "Window t covers characters t..t+w-1: out[n, f, t] = Σ_e Σ_k weight[f, e, k] · "
            "x[n, e, t + k] + bias[f], for t = 0..C-w; then the max over t."))
    return "conv + max-pool agrees with F.conv1d(...).amax(-1) for widths 1, 3 and 5"


@check
def check_highway_layer(fn: Callable[..., torch.Tensor]) -> str:
    """``fn(x, weight, bias)`` is one highway layer with ReLU, as
    :class:`elmo_tutorial.model.char_cnn.Highway`: ``weight`` (2D, D), ``bias`` (2D,); rows
    ``[:D]`` give h, rows ``[D:]`` the carry gate g; ``g * x + (1 - g) * relu(h)``."""
    torch.manual_seed(0)
    reference = Highway(8, n_layers=1)
    layer = reference.layers[0]
    with torch.no_grad():
        layer.bias.normal_()  # gates far from their initial value, so that swaps show
    x = torch.randn(5, 8)
    with torch.no_grad():
        expected = reference(x)
        with forbidding(fn, (Highway, "forward"), instead=(
                "compute the transform, the gate and their mix yourself")):
            got = fn(x.clone(), layer.weight.detach().clone(), layer.bias.detach().clone())
        h, g = F.linear(x, layer.weight, layer.bias).chunk(2, dim=-1)
        swapped = torch.sigmoid(g) * torch.relu(h) + (1 - torch.sigmoid(g)) * x
    if isinstance(got, torch.Tensor) and got.shape == x.shape:
        if torch.allclose(got, swapped, atol=1e-5):
            raise CheckFailed("The gate multiplies the wrong branch: in our (AllenNLP's) "
                              "convention g is the CARRY gate, y = g * x + (1 - g) * relu(h). "
                              "bilm-tf's W_carry is the other one, hence the sign flip on load.")
    assert_close(got, expected, "highway layer", atol=1e-5, hint=(
        "z = x @ weight.T + bias; h, g = z[..., :D], z[..., D:]; g = sigmoid(g); "
        "y = g * x + (1 - g) * relu(h)."))
    return "highway layer agrees with elmo_tutorial.model.char_cnn.Highway (carry-gate convention)"
