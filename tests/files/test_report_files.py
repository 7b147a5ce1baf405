"""The two reports share one table shape, one quick-run banner and one way to write files;
each shipped report's JSON is exactly its typed result's serialisation."""

import dataclasses
import json

import pytest

from elmo_tutorial.analyses import layer_markdown
from elmo_tutorial.analyses.layer_report import LayerReport
from elmo_tutorial.files.overwrite import WouldOverwrite
from elmo_tutorial.files.records import Record, RecordFormatError
from elmo_tutorial.files.report_files import markdown_table, quick_banner, write_report_files
from elmo_tutorial.tasks import report_markdown as task_markdown
from elmo_tutorial.tasks.results import TaskReport
from elmo_tutorial.training.run_folder import shipped_model

REPORTS = [  # (module, its typed result, the shipped JSON, the shipped markdown)
    (layer_markdown, LayerReport, "layers.json", "LAYERS.md"),
    (task_markdown, TaskReport, "tasks.json", "TASKS.md"),
]
# A field of each shipped JSON, and what a damaged file puts there instead.
DAMAGE = {"layers.json": (("wsd", "ALL", "layer2"), "high"),
          "tasks.json": (("tasks", "chunking", "arms", "elmo", "std"), None)}


def test_a_table_has_a_rule_and_one_line_per_row():
    assert markdown_table(["a", "b"], [["1", "2"]]) == ["| a | b |", "|---|---|", "| 1 | 2 |"]
    assert quick_banner("not comparable")[0].startswith("**Quick run on subsets (`--quick`)")


@pytest.mark.parametrize(("module", "typed", "json_name", "markdown_name"), REPORTS,
                         ids=[r[3] for r in REPORTS])
def test_each_shipped_report_is_what_its_writer_writes_from_its_json(
        tmp_path, module, typed, json_name, markdown_name):
    """Each shipped JSON read as its typed result and written back is the same file, byte for
    byte, and the markdown beside it is exactly what `write_report` makes of that result: the
    JSON (which notebooks and tools read) and the markdown (which people read) agree."""
    folder = shipped_model("small")
    shipped = (folder / json_name).read_text(encoding="utf-8")
    result = typed.from_dict(json.loads(shipped))
    assert result.to_json() == shipped
    written = write_report_files(result, tmp_path / json_name, tmp_path / markdown_name,
                                 module.to_markdown)
    assert [p.name for p in written] == [json_name, markdown_name]
    assert (tmp_path / json_name).read_text(encoding="utf-8") == shipped
    assert (tmp_path / markdown_name).read_text(encoding="utf-8") == \
        (folder / markdown_name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("module", "typed", "json_name", "markdown_name"), REPORTS,
                         ids=[r[3] for r in REPORTS])
def test_a_damaged_results_file_is_refused_naming_the_file_and_the_field(
        tmp_path, module, typed, json_name, markdown_name):
    data = json.loads((shipped_model("small") / json_name).read_text(encoding="utf-8"))
    place, bad = DAMAGE[json_name]
    parent = data
    for key in place[:-1]:
        parent = parent[key]
    parent[place[-1]] = bad
    damaged = tmp_path / json_name
    damaged.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordFormatError) as refused:
        typed.read(damaged)
    message = str(refused.value)
    assert str(damaged) in message and f"field {'.'.join(place)}: expected " in message
    assert f"got {bad!r}" in message and "write it again" in message
    del parent[place[-1]]
    damaged.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordFormatError, match=f"field {'.'.join(place)}: missing"):
        typed.read(damaged)


@pytest.mark.parametrize("module", [layer_markdown, task_markdown], ids=["layers", "tasks"])
def test_a_quick_report_opens_with_the_banner(module):
    folder = shipped_model("small")
    typed, name = (LayerReport, "layers.json") if module is layer_markdown else \
        (TaskReport, "tasks.json")
    result = dataclasses.replace(typed.read(folder / name), quick=True)
    assert "**Quick run on subsets (`--quick`): a smoke test," in module.to_markdown(result)


@dataclasses.dataclass(frozen=True)
class _Note(Record):
    text: str  # what a student wrote


def test_an_existing_file_is_kept_unless_forced(tmp_path):
    path = tmp_path / "R.md"
    path.write_text("a student's notes\n")
    note = _Note("# new")
    with pytest.raises(WouldOverwrite, match="--force"):
        write_report_files(note, None, path, lambda result: result.text)
    assert path.read_text() == "a student's notes\n"
    write_report_files(note, tmp_path / "R.json", path, lambda result: result.text, force=True)
    assert path.read_text() == "# new\n"
    assert (tmp_path / "R.json").read_text() == '{\n  "text": "# new"\n}\n'
