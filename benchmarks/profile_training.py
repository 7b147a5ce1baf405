"""Where the time of ``elmo-tutorial train --config tiny`` goes, stage by stage.

Usage (``NLTK_DATA`` / ``ELMO_TUTORIAL_DATA`` as for training)::

    python benchmarks/profile_training.py [--steps 600] [--threads N] [--config tiny]

Runs the preset in this process (a temporary run directory; ``--steps`` shortens it, keeping
the preset's evaluation and checkpoint intervals) with a timer around each stage: imports,
corpus and vocabulary (the ``Trainer`` set-up), batching (``make_lm_batch``), character CNN,
LSTM stacks and softmax (forward), the whole backward pass, clipping + optimiser, evaluation,
checkpoints, and the final weights + loss plot. Each stage is reported in wall-clock and CPU
seconds (all threads) and as a share of the wall clock. Nested stages are counted once, in the
innermost timer; "other" is the rest of the loop. Compare two versions of the package by
running the script with each on ``PYTHONPATH``, alternately, and reading the shares and the
CPU seconds (steadier than the wall clock on a shared machine).
"""

from __future__ import annotations

import time

_T0_WALL, _T0_CPU = time.perf_counter(), time.process_time()

import argparse  # noqa: E402
import contextlib  # noqa: E402
import functools  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections import defaultdict  # noqa: E402

import torch  # noqa: E402

import elmo_tutorial  # noqa: E402
from elmo_tutorial.model import batching  # noqa: E402
from elmo_tutorial.training import train  # noqa: E402
from elmo_tutorial.training.train_config import TrainConfig, apply_overrides  # noqa: E402

WALL, CPU = defaultdict(float), defaultdict(float)
_stack: list[str] = []


@contextlib.contextmanager
def stage(name: str):
    """Charge the time inside to ``name`` (and take it out of the enclosing stage)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # the direction threads' own work is inside a stage of the main thread
        return
    wall, cpu = time.perf_counter(), time.process_time()
    _stack.append(name)
    try:
        yield
    finally:
        _stack.pop()
        dw, dc = time.perf_counter() - wall, time.process_time() - cpu
        WALL[name] += dw
        CPU[name] += dc
        if _stack:
            WALL[_stack[-1]] -= dw
            CPU[_stack[-1]] -= dc


def wrap(owner, attribute: str, name: str) -> None:
    original = getattr(owner, attribute)

    @functools.wraps(original)
    def timed(*args, **kwargs):
        with stage(name):
            return original(*args, **kwargs)

    setattr(owner, attribute, timed)


def instrument() -> None:
    wrap(batching, "make_lm_batch", "batching")
    wrap(torch.Tensor, "backward", "backward pass")
    wrap(train.Trainer, "evaluate", "evaluation")
    wrap(train.Trainer, "save_checkpoint", "checkpoints")
    wrap(train.Trainer, "finish", "final weights + plot")
    wrap(train.Trainer, "_build_model", "set-up: model + optimiser")
    wrap(torch.nn.utils, "clip_grad_norm_", "clipping + optimiser")
    wrap(torch.optim.Adam, "step", "clipping + optimiser")
    from elmo_tutorial.fast.char_cnn import FastCharCNN
    from elmo_tutorial.model import char_cnn, lstm, softmax

    wrap(char_cnn.CharCNN, "forward", "character CNN (forward)")
    wrap(FastCharCNN, "forward", "character CNN (forward)")  # its own forward, after speed_up
    wrap(lstm.LSTMStack, "forward", "LSTM stacks (forward)")
    wrap(softmax.Softmax, "forward", "softmax (forward)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny")
    parser.add_argument("--steps", type=int, default=0, help="0: the preset's")
    parser.add_argument("--threads", type=int, default=None, help="default: the preset's")
    args = parser.parse_args()
    WALL["imports"], CPU["imports"] = (time.perf_counter() - _T0_WALL,
                                       time.process_time() - _T0_CPU)
    instrument()
    config = TrainConfig.preset(args.config)
    overrides = {"progress": False, "out_dir": tempfile.mkdtemp(prefix="profile_training_")}
    if args.steps:
        overrides["max_steps"] = args.steps
    if args.threads is not None:
        overrides["threads"] = args.threads
    config = apply_overrides(config, overrides)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    with stage("set-up: corpus, vocabulary, model"):
        trainer = train.Trainer(config)
    with stage("training loop: other"):
        trainer.fit()
    total_wall = WALL["imports"] + time.perf_counter() - start_wall
    total_cpu = CPU["imports"] + time.process_time() - start_cpu
    print(f"{args.config}, {trainer.total_steps} steps, {torch.get_num_threads()} thread(s), "
          f"package {elmo_tutorial.__file__}", file=sys.stderr)
    print(f"{'stage':34s} {'wall s':>8s} {'CPU s':>8s} {'share':>6s}")
    for name in sorted(WALL, key=WALL.get, reverse=True):
        print(f"{name:34s} {WALL[name]:8.2f} {CPU[name]:8.2f} {WALL[name] / total_wall:6.1%}")
    print(f"{'total':34s} {total_wall:8.2f} {total_cpu:8.2f}")


if __name__ == "__main__":
    main()
