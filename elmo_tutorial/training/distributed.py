"""Data-parallel training with ``torchrun``: one process per GPU (nccl) or per CPU group (gloo).

Taught in notebook 11 (``11_pretrained_and_scale``).

Launch::

    torchrun --standalone --nproc_per_node=4 -m elmo_tutorial train --config small --out runs/s
    elmo-tutorial train --config small --out runs/s --nproc 4        # the same, via the CLI

Every process builds the same model, vocabulary and list of *global* batches (same seeds);
process r trains on the sentences ``r, r + N, r + 2N, ...`` of each global batch, and
``DistributedDataParallel`` averages the gradients. With each process's loss scaled to
``N · (its NLL sum) / (global target count)`` that average is exactly the gradient of the
global batch's mean NLL, the update of a single process (``tests/training/test_ddp.py``).
Only rank 0 evaluates, logs and writes checkpoints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from elmo_tutorial.runtime import resolve_device


@dataclass
class DistInfo:
    """Where this process sits: ``rank`` of ``world_size`` processes, on ``device``."""

    rank: int = 0
    world_size: int = 1
    device: torch.device = torch.device("cpu")

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def init_distributed(device: str = "auto") -> DistInfo:
    """Join the process group if started by ``torchrun`` (``WORLD_SIZE`` > 1); else single."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank, local = int(os.environ.get("RANK", "0")), int(os.environ.get("LOCAL_RANK", "0"))
    dev = resolve_device(device, local)
    if world > 1 and not dist.is_initialized():
        backend = "nccl" if dev.type == "cuda" else "gloo"  # nccl: GPUs only; gloo: CPUs
        if dev.type == "cuda":
            torch.cuda.set_device(dev)
        dist.init_process_group(backend=backend, rank=rank, world_size=world)
    return DistInfo(rank=rank, world_size=world, device=dev)


def shutdown() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def shard(global_batch: list[int], info: DistInfo) -> list[int]:
    """This process's share of a global batch: every ``world_size``-th sentence from ``rank``."""
    return global_batch[info.rank :: info.world_size]


def wrap(model: torch.nn.Module, info: DistInfo) -> torch.nn.Module:
    """``DistributedDataParallel`` around the model when there are several processes."""
    if not info.distributed:
        return model
    ids = [info.device.index] if info.device.type == "cuda" else None
    return torch.nn.parallel.DistributedDataParallel(model, device_ids=ids)


def all_reduce_sum(values: list[float], info: DistInfo) -> list[float]:
    """Sum a few numbers over all processes (for logging global losses and counts)."""
    if not info.distributed:
        return list(values)
    t = torch.tensor(values, dtype=torch.float64, device=info.device)
    dist.all_reduce(t)
    return t.tolist()


def all_gather_objects(obj, info: DistInfo) -> list:
    """One picklable object from every process, in rank order (used for RNG states)."""
    if not info.distributed:
        return [obj]
    out = [None] * info.world_size
    dist.all_gather_object(out, obj)
    return out


def barrier(info: DistInfo) -> None:
    if info.distributed:
        dist.barrier()


__all__ = ["DistInfo", "init_distributed", "shutdown", "shard", "wrap", "all_reduce_sum",
           "all_gather_objects", "barrier"]
