"""The fast LSTMP stack (being written: same as the plain one for now)."""

from elmo_tutorial.model.lstm import LSTMStack


class FastLSTMStack(LSTMStack):
    pass
