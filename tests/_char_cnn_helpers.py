"""What the plain and the fast character-CNN tests share: a small config, a few sentences, and
a CharCNN whose biases are all non-zero, so that no term of the computation can hide."""

import torch

from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.config import ModelConfig

SMALL = ModelConfig(
    char_embed_dim=4, filters=((1, 3), (2, 4), (3, 5), (5, 6)), n_highway=2, projection_dim=7
)
SENTENCES = [
    ["The", "bank", "of", "the", "river", "."],
    ["the", "bank", "lent", "money"],
    ["."],
]


def char_cnn_with_biases(config=SMALL, seed=0, dtype=torch.float32, highway_biases=False):
    """A seeded ``CharCNN`` in ``dtype`` with random convolution and projection biases (and
    highway biases, with ``highway_biases``)."""
    torch.manual_seed(seed)
    model = CharCNN(config).to(dtype)
    with torch.no_grad():
        for conv in model.convs:
            conv.bias.normal_(0, 0.1)
        if highway_biases:
            for layer in model.highway.layers:
                layer.bias.normal_(0, 1.0)
        model.projection.bias.normal_(0, 0.1)
    return model
