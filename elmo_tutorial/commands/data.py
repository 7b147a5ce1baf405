"""``elmo-tutorial data list | download NAME [--force]``: the dataset registry."""

from __future__ import annotations

DESCRIPTION = """\
  elmo-tutorial data list              every dataset: size, licence, available locally?
  elmo-tutorial data download NAME     fetch it into the cache, verifying its checksum

Datasets are looked for in $ELMO_TUTORIAL_DATA (an offline copy of the official files) and
then in the cache ($ELMO_TUTORIAL_CACHE, default ~/.cache/elmo_tutorial); nltk corpora
wherever nltk finds them ($NLTK_DATA, ~/nltk_data). Check each dataset's licence before use."""


def add_arguments(parser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="list the datasets with size, licence and local availability")
    download = actions.add_parser("download", help="download one dataset (verified)")
    download.add_argument("name", metavar="NAME",
                          help="dataset name, as shown by `elmo-tutorial data list`")
    download.add_argument("--force", action="store_true",
                          help="download again even if the dataset is already available")
    download.add_argument("--quiet", action="store_true", help="no progress bar")


def list_datasets() -> str:
    """The registry as a text table."""
    from elmo_tutorial.data.registry import REGISTRY, is_available

    rows = [("name", "size", "licence", "local", "description")]
    rows += [(name, ds.size, ds.licence, "yes" if is_available(name) else "no", ds.description)
             for name, ds in REGISTRY.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def run(args) -> int:
    from elmo_tutorial.commands import fail
    from elmo_tutorial.data.registry import fetch, get_dataset

    if args.action == "list":
        print(list_datasets())
        return 0
    try:
        ds = get_dataset(args.name)
    except KeyError as err:  # the registry's message: the nearest names, and all of them
        return fail("data", err.args[0])
    path = fetch(ds.name, force=args.force, progress=not args.quiet)
    print(f"{ds.name}: available at {path}")
    if ds.note:
        print(f"note: {ds.note}")
    return 0
