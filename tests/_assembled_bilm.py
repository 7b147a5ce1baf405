"""ELMo's biLM assembled from the package's plain parts, as notebook 14's Exercise 1 asks:
the answer the trainer's ``build`` and the capstone's self-check are tested with; and a
shortcut that the self-check must refuse."""

from torch import nn

from elmo_tutorial.model.char_cnn import CharCNN
from elmo_tutorial.model.chars import check_char_ids
from elmo_tutorial.model.lm import BidirectionalLM, LMOutput
from elmo_tutorial.model.lstm import LSTMStack
from elmo_tutorial.model.softmax import Softmax


class AssembledBiLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        P = config.projection_dim
        self.char_cnn = CharCNN(config)
        for direction in ("forward", "backward"):
            stack = LSTMStack(P, config.lstm_dim, P, config.n_layers,
                              cell_clip=config.cell_clip, proj_clip=config.proj_clip,
                              use_skip_connections=config.use_skip_connections,
                              go_forward=direction == "forward", dropout=config.dropout)
            self.add_module(f"{direction}_lstm", stack)
        self.softmax = Softmax(P, config.vocab_size)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, batch, sampled=False):
        mask = check_char_ids(batch.char_ids)
        x = self.dropout(self.char_cnn(batch.char_ids))
        nll, count = {}, 0
        for direction in ("forward", "backward"):
            layers = getattr(self, f"{direction}_lstm")(x, mask)
            top = self.dropout(layers[-1])
            targets = getattr(batch, f"{direction}_targets")
            total, count = self.softmax(top, targets, sampled=sampled and self.training)
            nll[direction] = total / max(count, 1)
        return LMOutput(nll["forward"] + nll["backward"], nll["forward"], nll["backward"], count)


class WrappedBiLM(nn.Module):
    """The package's biLM's parts under the right names, its ``forward`` called to do the work."""

    def __init__(self, config):
        super().__init__()
        inner = BidirectionalLM(config)
        for name, module in inner.named_children():
            self.add_module(name, module)
        self._forward = inner.forward

    def forward(self, batch, sampled=False):
        return self._forward(batch, sampled=sampled)
