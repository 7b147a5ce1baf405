"""`elmo-tutorial embed`: layer 0 is context-free, the LSTM layers move a word with its context."""

import re
from pathlib import Path

from elmo_tutorial.commands.cli import main as cli

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "models" / "small"
TEXT = ["She sat on the bank of the river .", "He paid the money into the bank ."]


def _cosines(capsys, layer: str) -> dict[tuple[str, int, int], float]:
    assert cli(["embed", str(SHIPPED), *TEXT, "--layer", layer]) == 0
    found = re.findall(r"cos\('(.*)', word (\d+) of sentence 1, word (\d+) of sentence 2\) = "
                       r"([\d.]+)", capsys.readouterr().out)
    return {(t, int(i), int(j)): float(c) for t, i, j, c in found}


def test_layer_zero_is_context_free_and_the_top_layer_is_not(capsys):
    static = _cosines(capsys, "0")
    # 'the' is word 4 and 7 of sentence 1, word 3 and 6 of sentence 2: four pairs, each named
    assert list(static) == [("the", 4, 3), ("the", 7, 3), ("the", 4, 6), ("the", 7, 6),
                            ("bank", 5, 7), (".", 9, 8)]
    assert set(static.values()) == {1.0}
    assert _cosines(capsys, "2")[("bank", 5, 7)] < 0.99, "context should move 'bank'"
