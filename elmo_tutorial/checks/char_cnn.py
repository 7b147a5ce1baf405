"""Self-checks for notebook 03 (the character CNN): conv + max-pool, parameter counts, highway."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from elmo_tutorial.checks._core import (
    CheckFailed,
    assert_close,
    check,
    forbidding,
    nothing_returned,
    passed,
)
from elmo_tutorial.fast.char_cnn import conv1d_max, conv1d_windows
from elmo_tutorial.model.char_cnn import CharCNN, Highway
from elmo_tutorial.model.config import ModelConfig
from elmo_tutorial.training import cost

__all__ = ["check_char_cnn_parameters", "check_conv_max_pool", "check_highway_layer"]

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
    yield "the tiny model's config", ModelConfig(char_embed_dim=8, filters=((1, 16), (2, 16),
                                                 (3, 32), (4, 64)), n_highway=1,
                                                 projection_dim=64, lstm_dim=256)
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
def check_char_cnn_parameters(fn: Callable[[ModelConfig], dict]) -> None:
    """``fn(config)`` must return ``{"char embeddings": n, "convolutions": n, "highway": n,
    "projection": n}``, the parameter count of each part of ``CharCNN(config)``, worked out
    from the config alone. Compared with the modules' own counts on four configs; ``fn`` runs
    with ``CharCNN(...)`` and :func:`elmo_tutorial.training.cost.parameter_counts` unavailable."""
    for name, config in _configs():
        expected = _module_counts(config)
        with forbidding(fn, (CharCNN, "__init__"), cost.parameter_counts, instead=(
                "work each count out from the config's fields")):
            got = fn(config)
        nothing_returned(got, "your function", f"a dict with the keys {list(PARTS)}")
        if not isinstance(got, dict) or set(got) != set(PARTS):
            keys = sorted(got) if isinstance(got, dict) else type(got).__name__
            raise CheckFailed(f"return a dict with exactly the keys {list(PARTS)}, got {keys}")
        for part in PARTS:
            if not isinstance(got[part], int | float) or int(got[part]) != expected[part]:
                raise CheckFailed(
                    f"{name}: {part} has {expected[part]:,} parameters, you counted "
                    f"{got[part]!r}. Hint: {_HINTS[part]}")
    passed("parameter counts agree with CharCNN for the paper's, the tiny model's and two "
           "other configs")


# The convolutions a student could call instead of scoring the windows: conv2d or conv3d on an
# input with a dimension of 1 added computes exactly conv1d's windows.
CONVOLUTIONS = [(F, "conv1d"), (torch, "conv1d"), (F, "conv2d"), (torch, "conv2d"),
                (F, "conv3d"), (torch, "conv3d"), (torch, "convolution"), (F, "conv_tbc"),
                (torch, "conv_tbc")]


@check
def check_conv_max_pool(fn: Callable[..., torch.Tensor]) -> None:
    """``fn(x, weight, bias)`` gets character embeddings ``x`` (N, E, C) and one width's filters
    ``weight`` (count, E, w), ``bias`` (count,), and must return each filter's maximum over the
    windows, (N, count), before the activation. ``fn`` runs with every convolution of PyTorch
    (``F.conv1d``, so ``nn.Conv1d``, and ``conv2d``/``conv3d`` on a reshaped input, which
    compute the same windows) and the package's ``conv1d_windows`` and ``conv1d_max``
    unavailable."""
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
    passed("conv + max-pool agrees with F.conv1d(...).amax(-1) for widths 1, 3 and 5")


@check
def check_highway_layer(fn: Callable[..., torch.Tensor]) -> None:
    """``fn(x, weight, bias)`` is one highway layer with ReLU: ``weight`` (2D, D), ``bias`` (2D,);
    rows ``[:D]`` give the non-linear part h, rows ``[D:]`` the carry gate g; the answer is
    ``g * x + (1 - g) * relu(h)``. Compared with :class:`elmo_tutorial.model.char_cnn.Highway`,
    which ``fn`` cannot run."""
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
    passed("highway layer agrees with elmo_tutorial.model.char_cnn.Highway (carry-gate convention)")
