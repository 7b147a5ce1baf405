"""The CPU thread count of a training run: chosen once, written into ``config.json``, kept.

PyTorch splits a large sum (the gradient of a bias over every token of a batch, say) into one
part per thread and then adds the parts: another thread count adds the same numbers in another
order, so the result differs in its last bits, and two runs drift apart from there, step by
step (the ``tiny`` preset with dropout 0.1: other losses from step 6, weights 0.25 apart after
240 steps, with 1 thread and with 2). Without ``--threads`` the count follows the machine's
load (:func:`runtime.default_threads`), so the same command would learn other weights on a
quiet and on a busy machine, and a run stopped and resumed while the load changed would end
far from the run left alone. So the count is part of the run, like its seed:

- a new run trains on ``threads`` from its config or, when that is 0, on the cores free when it
  starts; ``config.json`` records the count it trains on;
- a resumed run trains on the recorded count, whatever the load is now; on another one only
  when asked for (``threads`` set, and different: ``--threads=N`` on the resume command line),
  with a warning;
- a run folder written before the count was recorded (``threads`` 0 in its ``config.json``)
  resumes as it would have then, on the cores free now, with a note; its count is recorded
  from then on.

Example:
    >>> count, messages = training_threads(0, cores=8, free=lambda: 3)   # a new run
    >>> count
    3
    >>> training_threads(0, cores=8, free=lambda: 8, recorded=3)[0]      # resumed: kept
    3
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["training_threads"]


def training_threads(requested: int, *, cores: int, free: Callable[[], int],
                     recorded: int | None = None) -> tuple[int, list[str]]:
    """The thread count a run trains on, and what to tell the user about it.

    Args:
        requested: the config's ``threads`` (0: not asked for).
        cores: the CPU cores this process may use; more threads than that would wait for
            cores, many times slower, so a larger count is cut to it.
        free: the cores free now (``runtime.default_threads``; under torchrun, rank 0's
            answer, so that every process trains on the same count).
        recorded: ``None`` for a new run; when resuming, the ``threads`` of the run's
            ``config.json`` (0: written before the count was recorded).

    Returns:
        ``(count, messages)``: messages are whole sentences, for stderr.
    """
    messages = []
    count = requested or (recorded if recorded else 0)
    if count > cores:
        messages.append(f"threads={count} is more than the {cores} CPU cores this process may "
                        f"use: training on {cores}")
        count = cores
    if recorded == 0:  # resuming a run of an older version: today's choice, said as such
        count = count or free()
        messages.append(f"the run's config.json does not record the number of CPU threads it "
                        f"trained on (an older version wrote it): training on {count}; the "
                        "weights may differ in their last bits from those of the run left "
                        "alone. The run keeps this count from now on")
    elif recorded and count != recorded:
        why = "as --threads asks" if requested else "the cores this process may use"
        messages.append(f"warning: training on {count} CPU threads ({why}) instead of the "
                        f"{recorded} this run was started with: it goes on, but its weights "
                        "will differ from those of the run left alone, in the last bits at "
                        "first and more with every step")
    elif not count:  # a new run that did not ask: the cores free now, kept from here on
        count = free()
    return count, messages
