"""Notebooks 04 and 05's self-checks accept the package's own answers and reject wrong ones."""

import pytest
import torch

from elmo_tutorial import checks
from elmo_tutorial.model.lstm import reverse_padded


def tf_step(x, h, c, kernel, bias, proj_kernel, cell_clip, proj_clip, forget_bias=1.0,
            order="ijfo"):
    gates = torch.cat([x, h], dim=-1) @ kernel + bias
    if order == "ijfo":
        i, j, f, o = gates.chunk(4, dim=-1)
    else:  # read as torch's (i, f, g, o)
        i, f, j, o = gates.chunk(4, dim=-1)
    c = torch.sigmoid(f + forget_bias) * c + torch.sigmoid(i) * torch.tanh(j)
    if cell_clip is not None:
        c = c.clamp(-cell_clip, cell_clip)
    h = (torch.sigmoid(o) * torch.tanh(c)) @ proj_kernel
    return (h.clamp(-proj_clip, proj_clip) if proj_clip is not None else h), c


def test_tf_step_check_accepts_bilm_tfs_step():
    checks.check_tf_lstmp_step(tf_step)


@pytest.mark.parametrize(
    "wrong, message",
    [(lambda *a: tf_step(*a, forget_bias=0.0), "forget_bias"),
     (lambda *a: tf_step(*a, order="ifgo"), "torch's order"),
     (lambda x, h, c, k, b, p, cc, pc: tf_step(x, h, c, k, b, p, cc, None), "h_t with clipping"),
     (lambda *a: tf_step(*a)[0], "pair")],
    ids=["no-forget-bias", "torch-order", "no-proj-clip", "one-output"],
)
def test_tf_step_check_rejects_wrong_steps(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_tf_lstmp_step(wrong)


def test_residual_check_accepts_the_experiment_and_names_what_is_wrong():
    from dataclasses import replace

    from elmo_tutorial.model.config import MODEL_PRESETS
    base = MODEL_PRESETS["tiny"]
    changed = replace(base, use_skip_connections=False)
    checks.check_residual_experiment(changed, base, 0.056, 0.0062)
    for args, message in [
        ((base, base, 0.056, 0.056), "still has use_skip_connections=True"),
        ((replace(changed, n_layers=3), base, 0.056, 0.0062), r"also changes \['n_layers'\]"),
        ((changed, base, 0.056, 0.056), "Both measurements are equal"),
        ((changed, base, 0.0062, 0.056), "swap"),
        (({"use_skip_connections": False}, base, 0.056, 0.0062), "ModelConfig"),
    ]:
        with pytest.raises(checks.CheckFailed, match=message):
            checks.check_residual_experiment(*args)


def test_depth_sweep_check_accepts_the_sweep_and_names_a_wrong_config():
    from dataclasses import replace

    from elmo_tutorial.model.config import MODEL_PRESETS
    base, depths = MODEL_PRESETS["tiny"], [1, 3]
    sweep = {(d, r): replace(base, n_layers=d, use_skip_connections=r)
             for d in depths for r in (True, False)}
    checks.check_depth_sweep(sweep, base, depths)
    for change, message in [
        ({(3, False): replace(base, n_layers=3)}, "use_skip_connections=True, expected 3 and "
                                                  "False"),
        ({(1, True): replace(base, n_layers=1, dropout=0.0)}, r"also changes \['dropout'\]"),
        ({(3, True): replace(base, use_skip_connections=True)}, "has 2 layers"),
    ]:
        with pytest.raises(checks.CheckFailed, match=message):
            checks.check_depth_sweep({**sweep, **change}, base, depths)
    with pytest.raises(checks.CheckFailed, match=r"configs\[3, False\] is missing"):
        checks.check_depth_sweep({k: v for k, v in sweep.items() if k != (3, False)}, base,
                                 depths)


def reverse_left_padded(x, lengths):
    T = x.shape[1]
    t = torch.arange(T)
    start = T - lengths[:, None]  # (B, 1): where each row's tokens begin
    index = torch.where(t >= start, start + T - 1 - t, t)  # (B, T)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))


def test_left_padded_check_accepts_a_right_answer():
    checks.check_reverse_left_padded(reverse_left_padded)
    checks.check_reverse_left_padded(  # the other way round: move to right padding and back
        lambda x, n: torch.flip(reverse_padded(torch.flip(x, dims=[1]), n), dims=[1]))


@pytest.mark.parametrize(
    "wrong, message",
    [(lambda x, n: torch.flip(x, dims=[1]), "padding must stay in front"),
     (reverse_padded, "right-padded reversal"),
     (lambda x, n: x, "Nothing changed"),
     (lambda x, n: reverse_left_padded(x, n - (n > 0).long()), "reversed left-padded batch")],
    ids=["flip", "right-padded", "identity", "one-off"],
)
def test_left_padded_check_rejects_wrong_reversals(wrong, message):
    with pytest.raises(checks.CheckFailed, match=message):
        checks.check_reverse_left_padded(wrong)
