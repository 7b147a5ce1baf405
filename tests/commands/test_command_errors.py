"""Every ``elmo-tutorial`` command says why it stopped through one error path (``cli.one_line``
and ``commands.fail``), and the commands that print a report take its arguments from one place
(``commands.add_report_arguments``): the wording and the exit codes are stated once."""

import ast
import io
from pathlib import Path

import pytest

from elmo_tutorial import commands
from elmo_tutorial.commands.cli import COMMANDS, build_parser, one_line
from elmo_tutorial.commands.cli import main as cli_main

COMMANDS_DIR = Path(commands.__file__).parent


def _own_error_lines(path: Path) -> list[int]:
    """Lines of ``path`` that call something (print) with a text starting "elmo-tutorial "
    followed by a command's name: an error line of the command's own."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            if isinstance(first, ast.JoinedStr) and first.values:
                first = first.values[0]  # f"elmo-tutorial {command}: ..." starts with a text
            if isinstance(first, ast.Constant) and str(first.value).startswith("elmo-tutorial "):
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_command_prints_its_own_error_line(name):
    path = COMMANDS_DIR / f"{name}.py"
    assert _own_error_lines(path) == [], (
        f"{path.name} prints its own 'elmo-tutorial {name}: ...' line: use commands.fail")


def test_every_command_module_is_listed_in_the_command_line():
    modules = {p.stem for p in COMMANDS_DIR.glob("*.py") if p.stem not in ("__init__", "cli")}
    assert modules == set(COMMANDS)


def test_the_helper_itself_is_found_by_the_check():
    assert _own_error_lines(Path(commands.__file__)), "the check would find nothing anywhere"


def test_fail_prints_one_line_and_returns_the_exit_code(capsys):
    assert commands.fail("tasks", ValueError("no such model")) == 2
    assert commands.fail("train", "interrupted", 130) == 130
    assert capsys.readouterr().err == ("elmo-tutorial tasks: no such model\n"
                                       "elmo-tutorial train: interrupted\n")


def test_fail_on_a_closed_terminal_still_returns_the_exit_code(monkeypatch):
    class Closed(io.StringIO):
        def write(self, text):
            raise OSError(5, "Input/output error")  # the terminal went with SIGHUP

    monkeypatch.setattr("sys.stderr", Closed())
    assert commands.fail("train", "interrupted", 130) == 130


@pytest.mark.parametrize("name", ["tasks", "layers"])
def test_report_commands_take_json_markdown_and_force_from_one_helper(name):
    source = (COMMANDS_DIR / f"{name}.py").read_text(encoding="utf-8")
    assert "add_report_arguments(" in source
    for flag in ("--json", "--markdown", "--force"):
        assert f'add_argument("{flag}"' not in source
    options = {o for a in build_parser(name)._subparsers._group_actions[0].choices[name]._actions
               for o in a.option_strings}
    assert {"--json", "--markdown", "--force"} <= options


@pytest.mark.parametrize("error, line, code", [
    (ValueError("max_steps must be ≥ 0"), "max_steps must be ≥ 0", 2),
    (PermissionError(13, "Permission denied", "/runs/x"), "/runs/x: Permission denied", 2),
    (FileNotFoundError(2, "No such file or directory"), "No such file or directory", 2),
    (OSError(28, "No space left on device", "/runs/x/log.jsonl"),
     "/runs/x/log.jsonl: No space left on device: free some space and run the same command "
     "again", 1),
    (FloatingPointError("the loss is nan at step 3"), "the loss is nan at step 3", 1),
    (RuntimeError("DefaultCPUAllocator: not enough memory: you tried to allocate 9 GB"),
     "out of memory (DefaultCPUAllocator: not enough memory: you tried to allocate 9 GB): try "
     "a smaller --batch-size", 1),
])
def test_a_plausible_mistake_is_one_line_and_its_exit_code(error, line, code):
    assert one_line(error) == (line, code)


@pytest.mark.parametrize("bug", [RuntimeError("mat1 and mat2 shapes cannot be multiplied"),
                                 KeyError("layer"), TypeError("unexpected keyword")])
def test_any_other_exception_is_a_bug_and_keeps_its_traceback(bug, monkeypatch):
    def run(args):
        raise bug

    monkeypatch.setattr("elmo_tutorial.commands.doctor.run", run)
    with pytest.raises(type(bug)):
        cli_main(["doctor"])


def test_an_interruption_says_what_the_command_kept(monkeypatch, capsys):
    def run(args):
        raise KeyboardInterrupt("interrupted; the 3 runs finished so far are kept")

    monkeypatch.setattr("elmo_tutorial.commands.doctor.run", run)
    assert cli_main(["doctor"]) == 130
    assert capsys.readouterr().err == ("elmo-tutorial doctor: interrupted; the 3 runs finished "
                                       "so far are kept\n")


def test_a_mistyped_command_gets_a_suggestion_not_the_whole_help(capsys):
    assert cli_main(["evalute", "runs/tiny"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'evalute'; did you mean 'evaluate'?" in err
    assert len(err.splitlines()) <= 3, "one usage line and the suggestion, not the whole help"
    assert cli_main(["zzz"]) == 2
    assert "the commands are doctor, data, train" in capsys.readouterr().err
