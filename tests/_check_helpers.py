"""Helpers for the tests of the self-checks."""

import types

import torch

from elmo_tutorial.model.char_cnn import Highway


def own_copy(fn):
    """A copy of a package function, as a student who wrote the same code would have it: the
    same code and defaults, with the names of its module as they are now, but not the function
    a check forbids (a check refuses calls of the package's own function, not its formula)."""
    copy = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def highway_from_the_package(x, weight, bias):
    """A student's answer that calls the package's ``Highway`` with the given weights: what
    the highway check must refuse."""
    highway = Highway(x.shape[-1], n_layers=1)
    with torch.no_grad():
        highway.layers[0].weight.copy_(weight)
        highway.layers[0].bias.copy_(bias)
    return highway(x)
