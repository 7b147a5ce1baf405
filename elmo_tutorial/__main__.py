"""``python -m elmo_tutorial COMMAND ...`` is ``elmo-tutorial COMMAND ...``.

It is also what torchrun starts for data-parallel training, one process per GPU or CPU share::

    torchrun --nproc_per_node=4 -m elmo_tutorial train --config small --out runs/small
"""

import sys

from elmo_tutorial.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
