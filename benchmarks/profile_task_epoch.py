"""Where one epoch of a task model goes, and what the `tasks` report's protocol costs.

Trains one epoch of the chunking tagger with ELMo at the input (the full CoNLL-2000 training
set, the shipped small biLM's cached layers, one thread, as the report runs it) under
torch.profiler and prints the operators that take the most time; then times one epoch with
``nn.Dropout`` (``bernoulli_``, ``train_task_model(..., fast=False)``) against its fast version
``FastDropout`` (``rand_like``, what ``speed_up`` switches it to), the same model otherwise, in
alternation.

    python benchmarks/profile_task_epoch.py [--rounds 3] [--task chunking]

Needs the offline data (ELMO_TUTORIAL_DATA, NLTK_DATA); the first run embeds the task.
"""

from __future__ import annotations

import argparse
import time

import torch

from elmo_tutorial import Embedder
from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.tasks.training import CHAR_FILTERS, prepare_task, train_task_model
from elmo_tutorial.tasks.vectors import word_vectors
from elmo_tutorial.training.run_folder import load_elmo, shipped_model


def one_epoch(splits, vectors, fast: bool = True) -> float:
    train = splits["train"]
    torch.manual_seed(0)
    model = TaskModel(vectors, len(train.classes), "tag" if train.is_tagging else "classify",
                      elmo_layers=3, elmo_dim=256, elmo_at=("input",),
                      char_filters=CHAR_FILTERS)
    start = time.perf_counter()
    train_task_model(model, train, splits["valid"], max_epochs=1, patience=1, hard_cap=1,
                     fast=fast)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="chunking", choices=("chunking", "ner", "sst5"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    vectors, index = word_vectors("english_mix")
    splits = prepare_task(args.task, Embedder(load_elmo(shipped_model("small"))), index)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        seconds = one_epoch(splits, vectors)
    print(f"one epoch of {args.task} (+ ELMo at the input) with dev: {seconds:.1f} s")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
    times = {"nn.Dropout": [], "FastDropout": []}
    for _ in range(args.rounds):
        times["nn.Dropout"].append(one_epoch(splits, vectors, fast=False))
        times["FastDropout"].append(one_epoch(splits, vectors))
    for name, t in times.items():
        print(f"{name:<12} epoch {min(t):.2f} s min, {sorted(t)[len(t) // 2]:.2f} s median "
              f"over {args.rounds} rounds")
    ratios = [a / b for a, b in zip(times["nn.Dropout"], times["FastDropout"], strict=True)]
    print(f"nn.Dropout / FastDropout per round: {', '.join(f'{r:.2f}' for r in ratios)}")


if __name__ == "__main__":
    main()
