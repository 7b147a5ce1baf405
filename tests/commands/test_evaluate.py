"""``elmo-tutorial evaluate --json``: one JSON object on stdout, or the table and a file, as
the report commands write theirs (never over an existing file without --force)."""

import json

from elmo_tutorial.commands.cli import main as cli


def test_json_alone_prints_one_object(finished_run, capsys):
    assert cli(["evaluate", str(finished_run), "--no-ngram", "--max-sentences", "3",
                "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_sentences"] == 3


def test_json_with_a_path_prints_the_table_and_writes_the_file_once(finished_run, tmp_path,
                                                                    capsys):
    path = tmp_path / "result.json"
    argv = ["evaluate", str(finished_run), "--no-ngram", "--max-sentences", "3", "--json",
            str(path)]
    assert cli(argv) == 0
    assert "biLM" in capsys.readouterr().out
    assert json.loads(path.read_text())["n_sentences"] == 3
    path.write_text("mine")
    assert cli(argv) == 2
    assert "--force" in capsys.readouterr().err and path.read_text() == "mine"
    assert cli([*argv, "--force"]) == 0
    assert json.loads(path.read_text())["n_sentences"] == 3
