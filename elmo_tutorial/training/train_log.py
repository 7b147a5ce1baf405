"""The training log: JSON lines you can grep or load with pandas, and a loss-curve plot.

Each line of ``log.jsonl`` is one event::

    {"kind": "train", "step": 10, "epoch": 0, "loss": 9.21, "ppl": 100.2, "lr": 0.005,
     "grad_norm": 3.1, "tokens_per_s": 5210.0}
    {"kind": "eval", "step": 100, "fwd_ppl": 80.1, "bwd_ppl": 82.3, "avg_ppl": 81.2, ...}

``loss`` is the joint objective (forward NLL + backward NLL, nats per token); ``ppl`` is
``exp(loss / 2)``, the average of the two directions' perplexities (geometric mean). With the
sampled softmax the training loss is the sampled estimate; evaluations always use the full one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from elmo_tutorial.files.safe_files import atomic_write, atomic_write_text

LOG = "log.jsonl"


def read_log(path: str | Path) -> list[dict]:
    """All events of a ``log.jsonl`` (a run directory or the file itself); a line cut short
    by a crash is passed over (the resumed run logs it again)."""
    path = Path(path)
    path = path / LOG if path.is_dir() and path.name != LOG else path
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events


class TrainLog:
    """Append events to ``run_dir/log.jsonl``; draw ``run_dir/loss.png``. ``enabled``: rank 0
    only; ``truncate_after``: on resume, drop the events after the checkpoint's step."""

    def __init__(self, run_dir: str | Path, enabled: bool = True, truncate_after: int = 0):
        self.path, self.enabled = Path(run_dir) / LOG, enabled
        if not enabled:
            return
        kept = [e for e in read_log(self.path) if e["step"] <= truncate_after]
        atomic_write_text(self.path, "".join(json.dumps(e) + "\n" for e in kept))

    def _write(self, event: dict) -> None:
        if self.enabled:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(event) + "\n")

    def train(self, step: int, epoch: int, stats: dict, lr: float, tokens_per_s: float) -> None:
        self._write({"kind": "train", "step": step, "epoch": epoch,
                     "loss": round(stats["loss"], 6), "ppl": round(math.exp(stats["loss"] / 2), 4),
                     "lr": lr, "grad_norm": round(stats["grad_norm"], 6),
                     "tokens_per_s": round(tokens_per_s, 1)})

    def eval(self, step: int, metrics: dict) -> None:
        self._write({"kind": "eval", "step": step,
                     **{k: round(v, 6) if isinstance(v, float) else v for k, v in metrics.items()}})

    def plot(self, baseline: float | None = None) -> None:
        """Training loss per step and held-out average perplexity → ``loss.png``."""
        if self.enabled:
            plot_log(read_log(self.path), self.path.parent / "loss.png", baseline)


def plot_log(events: list[dict], out: str | Path | None = None, baseline: float | None = None):
    """Draw the loss curve of ``events`` (loss per step, held-out perplexity); save it to
    ``out`` (png) if given; return the ``Figure``.

    Built without pyplot, on its own Agg canvas, so that training leaves the user's backend
    and pyplot alone; in a notebook, show it as a cell's last value (``plt.show()`` does not
    know it).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    train = [e for e in events if e["kind"] == "train"]
    evals = [e for e in events if e["kind"] == "eval"]
    fig = Figure(figsize=(10, 3.6))
    FigureCanvasAgg(fig)  # renders to PNG with no GUI and no pyplot state
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot([e["step"] for e in train], [e["loss"] / 2 for e in train], label="train")
    ax1.plot([e["step"] for e in evals], [(e["fwd_nll"] + e["bwd_nll"]) / 2 for e in evals],
             "o-", label="held-out")
    ax1.set(xlabel="step", ylabel="NLL per token and direction (nats)", title="loss")
    ax1.legend()
    for key in ("fwd_ppl", "bwd_ppl", "avg_ppl"):
        ax2.plot([e["step"] for e in evals], [e[key] for e in evals], "o-", label=key[:3])
    if baseline is not None:
        ax2.axhline(baseline, color="gray", linestyle="--", label="3-gram KN")
    ax2.set(xlabel="step", ylabel="perplexity", yscale="log", title="held-out perplexity")
    ax2.legend()
    fig.tight_layout()
    if out is not None:
        atomic_write(out, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
    return fig


__all__ = ["TrainLog", "read_log", "plot_log"]
