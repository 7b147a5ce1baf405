"""The three reports share one table shape, one quick-run banner and one way to write files."""

import json

import pytest

from elmo_tutorial.analyses import layer_report
from elmo_tutorial.files.overwrite import WouldOverwrite
from elmo_tutorial.files.report_files import markdown_table, quick_banner, write_report_files
from elmo_tutorial.model.run_dir import shipped_model
from elmo_tutorial.tasks import finetune_report as finetune_report
from elmo_tutorial.tasks import report_markdown as task_markdown

REPORTS = [  # (module, the shipped JSON, the shipped markdown, the JSON's indent)
    (layer_report, "layers.json", "LAYERS.md", 2),
    (task_markdown, "tasks.json", "TASKS.md", 1),
    (finetune_report, "finetune.json", "FINETUNE.md", 2),
]


def test_a_table_has_a_rule_and_one_line_per_row():
    assert markdown_table(["a", "b"], [["1", "2"]]) == ["| a | b |", "|---|---|", "| 1 | 2 |"]
    assert quick_banner("not comparable")[0].startswith("**Quick run on subsets (`--quick`)")


@pytest.mark.parametrize(("module", "json_name", "markdown_name", "indent"), REPORTS,
                         ids=[r[2] for r in REPORTS])
def test_each_shipped_report_is_what_its_writer_writes_from_its_json(
        tmp_path, module, json_name, markdown_name, indent):
    """The markdown beside each shipped JSON is exactly what `write_report` makes of it, so
    the JSON (which notebooks and tools read) and the markdown (which people read) agree."""
    folder = shipped_model("small")
    result = json.loads((folder / json_name).read_text(encoding="utf-8"))
    written = write_report_files(result, tmp_path / json_name, tmp_path / markdown_name,
                                 module.to_markdown, indent=indent)
    assert [p.name for p in written] == [json_name, markdown_name]
    assert (tmp_path / markdown_name).read_text(encoding="utf-8") == \
        (folder / markdown_name).read_text(encoding="utf-8")
    assert json.loads((tmp_path / json_name).read_text(encoding="utf-8")) == result


@pytest.mark.parametrize("module", [layer_report, task_markdown], ids=["layers", "tasks"])
def test_a_quick_report_opens_with_the_banner(module):
    folder = shipped_model("small")
    name = "layers.json" if module is layer_report else "tasks.json"
    result = {**json.loads((folder / name).read_text(encoding="utf-8")), "quick": True}
    assert "**Quick run on subsets (`--quick`): a smoke test," in module.to_markdown(result)


def test_an_existing_file_is_kept_unless_forced(tmp_path):
    path = tmp_path / "R.md"
    path.write_text("a student's notes\n")
    with pytest.raises(WouldOverwrite, match="--force"):
        write_report_files({}, None, path, lambda result: "# new")
    assert path.read_text() == "a student's notes\n"
    write_report_files({}, None, path, lambda result: "# new", force=True)
    assert path.read_text() == "# new\n"
