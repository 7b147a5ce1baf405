"""The tasks of the report, one :class:`Task` each: how a task is read, scored, named and run.

Every module of the report reads this registry; to add a task, add a reader and one entry to
:data:`TASKS`. ``sst5`` trains on SST-5's 8,544 training sentences, ``sst5_phrases`` as the
paper did, on every labelled phrase of the training trees (159,273), both scored on sentences;
CoNLL-2000 has no validation set, so its last 1,000 training sentences are held out for it.

Example:
    >>> TASKS["chunking"].metric, TASKS["chunking"].tagging, TASKS["sst5"].arms
    ('F1', True, ('baseline', 'layer0', 'elmo'))
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from elmo_tutorial.data import annotated

__all__ = ["ARMS", "PAPER", "TASKS", "Task", "read_task"]

ARMS = ("baseline", "layer0", "elmo")  # Table 1's arms: no biLM, its layer 0 alone, ELMo
CHUNKING_VALID = 1000  # sentences at the end of CoNLL-2000's train file held out for dev

Splits = dict[str, list[tuple[list[str], object]]]  # split → [(tokens, label or tags)]


@dataclass(frozen=True)
class Task:
    """One task of the report."""

    name: str  # the task's key in --tasks, the runs file and tasks.json
    title: str  # its name in the report's prose and tables
    panel: str  # its name in a figure
    column: str  # its name in a table's column header
    metric: str  # "accuracy" or "F1" (of spans of tags)
    tagging: bool  # a tag per token; else a label per sentence
    read: Callable[[], Splits]  # {"train", "valid", "test": [(tokens, target), ...]}
    minutes: float  # CPU minutes of one full run (measured): the longest runs start first
    arms: tuple[str, ...] = ARMS  # Table 1's arms on this task
    figure1: bool = False  # trained on 1 % and 10 % of its training set too (Figure 1)
    quality: bool = False  # in the quality figure (a gain per biLM)
    layer_study: bool = False  # Tables 2-3 and the choice of ELMo's place, on its sample
    floors: bool = False  # the majority class and a bag-of-words regression beside Table 1
    words_of: str | None = None  # a task whose sentences hold every word of this one


def _sst5() -> Splits:
    return {split: annotated.sst(split) for split in ("train", "valid", "test")}


def _sst5_phrases() -> Splits:
    return {"train": annotated.sst("train", phrases=True), "valid": annotated.sst("valid"),
            "test": annotated.sst("test")}


def _chunking() -> Splits:
    train = annotated.conll2000_chunks("train")
    return {"train": train[:-CHUNKING_VALID], "valid": train[-CHUNKING_VALID:],
            "test": annotated.conll2000_chunks("test")}


def _ner() -> Splits:
    return {split: annotated.wnut17(split) for split in ("train", "valid", "test")}


# SST-5's phrases run the paper's two arms only: a run costs ten of the sentences'.
TASKS: dict[str, Task] = {t.name: t for t in (
    Task("sst5", "SST-5 (sentiment, 5 classes)", "SST-5", "SST-5", "accuracy", False, _sst5,
         minutes=1.8, floors=True),
    Task("sst5_phrases", "SST-5, trained on every labelled phrase", "SST-5 (phrases)",
         "SST-5 (phrases)", "accuracy", False, _sst5_phrases, minutes=7.3,
         arms=("baseline", "elmo"), words_of="sst5"),
    Task("chunking", "CoNLL-2000 chunking", "CoNLL-2000 chunking", "chunking", "F1", True,
         _chunking, minutes=4.4, figure1=True, quality=True, layer_study=True),
    Task("ner", "WNUT-17 NER", "WNUT-17 NER", "NER", "F1", True, _ner, minutes=0.85, figure1=True,
         quality=True),
)}

# The paper's numbers: Table 1 from Peters et al. (2018) (SST-5: BCN; NER: CoNLL-2003, not
# WNUT-17) and TagLM (Peters et al. 2017) for CoNLL-2000 chunking; Tables 2 and 3 (SQuAD F1,
# SNLI accuracy, SRL F1), beside ours on chunking.
PAPER = {
    "table1": {"sst5": {"baseline": 51.4, "elmo": 54.7}, "ner": {"baseline": 90.15, "elmo": 92.22},
               "chunking": {"baseline": 95.00, "elmo": 96.37}},
    "table2": {"squad": {"baseline": 80.8, "top": 84.7, "lambda1": 85.0, "elmo": 85.2},
               "snli": {"baseline": 88.1, "top": 89.1, "lambda1": 89.3, "elmo": 89.5},
               "srl": {"baseline": 81.6, "top": 84.1, "lambda1": 84.6, "elmo": 84.8}},
    "table3": {"squad": {"input": 85.1, "input_output": 85.6, "output": 84.8},
               "snli": {"input": 88.9, "input_output": 89.5, "output": 88.7},
               "srl": {"input": 84.7, "input_output": 84.3, "output": 80.9}},
}


@functools.cache  # a report reads each task several times (checksums, splits, sizes, words)
def read_task(name: str) -> Splits:
    """``{"train", "valid", "test": [(tokens, target), ...]}``: a label or a list of tags,
    parsed once a process (do not change the lists)."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASKS)}")
    return TASKS[name].read()
