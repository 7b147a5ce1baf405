"""The fast character CNN (being written: same as the plain one for now)."""

from elmo_tutorial.model.char_cnn import CharCNN, Highway


class FastHighway(Highway):
    pass


class FastCharCNN(CharCNN):
    pass
