"""One way to publish a folder whole (``files/staging.py``), which checkpoints and exports
share: a kill between the renames of a swap is finished by the next writer, a dead writer's
staging folder is removed, a live writer's is left alone."""

from __future__ import annotations

import os

import pytest

from elmo_tutorial.files.staging import publish_staged, recover_staged, staged_folder

DEAD = 999_999_999  # no process has this id


def _folder(path, **files):
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def _contents(path):
    return {p.name: p.read_text() for p in path.iterdir()}


def test_a_staged_folder_replaces_the_old_one_whole_and_leaves_nothing_beside(tmp_path):
    target = _folder(tmp_path / "out", old="1")
    with staged_folder(target, "export", replace=True) as stage:
        assert stage.parent == tmp_path and stage.name.startswith(f".out.export-{os.getpid()}-")
        (stage / "new").write_text("2")
        assert _contents(target) == {"old": "1"}  # nothing is visible before the block ends
    assert _contents(target) == {"new": "2"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_block_removes_its_staging_and_keeps_the_old_folder(tmp_path):
    target = _folder(tmp_path / "out", old="1")
    with pytest.raises(KeyboardInterrupt), staged_folder(target, "export", replace=True) as stage:
        (stage / "half").write_text("x")
        raise KeyboardInterrupt
    assert _contents(target) == {"old": "1"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_without_replace_an_existing_folder_is_never_overwritten(tmp_path):
    target = _folder(tmp_path / "step_000002", weights="kept")
    stage = _folder(tmp_path / ".step_000002.tmp-1-x", weights="other")
    with pytest.raises(OSError):
        publish_staged(stage, target)
    assert _contents(target) == {"weights": "kept"}


def test_a_kill_after_the_old_folder_went_aside_is_finished_by_recovery(tmp_path):
    # killed between "old aside" and "new in": the target is missing, both are beside it
    _folder(tmp_path / f".out.aside-{DEAD}", old="1")
    _folder(tmp_path / f".out.ready-{DEAD}", new="2")
    _folder(tmp_path / f".out.export-{DEAD}-abc", half="x")
    recover_staged(tmp_path, "export", "out")
    assert _contents(tmp_path / "out") == {"new": "2"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_kill_before_the_new_folder_was_complete_puts_the_old_one_back(tmp_path):
    _folder(tmp_path / f".out.aside-{DEAD}", old="1")
    recover_staged(tmp_path, "export", "out")
    assert _contents(tmp_path / "out") == {"old": "1"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_kill_before_anything_moved_keeps_the_target(tmp_path):
    _folder(tmp_path / "out", old="1")
    _folder(tmp_path / f".out.ready-{DEAD}", new="2")
    recover_staged(tmp_path, "export", "out")
    assert _contents(tmp_path / "out") == {"old": "1"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_dead_staging_is_removed_and_a_live_writers_is_kept(tmp_path):
    dead = _folder(tmp_path / f".step_000004.tmp-{DEAD}-abc", half="x")
    live = _folder(tmp_path / f".step_000006.tmp-{os.getpid()}-def", half="y")
    other = _folder(tmp_path / f".notes.backup-{DEAD}", mine="z")  # not a staging folder
    assert recover_staged(tmp_path, "tmp") == [dead]
    assert not dead.exists() and live.exists() and other.exists()


def test_a_new_writer_clears_what_a_dead_one_left_for_its_target(tmp_path):
    dead = _folder(tmp_path / f".out.export-{DEAD}-abc", half="x")
    with staged_folder(tmp_path / "out", "export") as stage:
        (stage / "new").write_text("2")
    assert not dead.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_published_folder_has_the_usual_permissions_not_mkdtemps(tmp_path):
    with staged_folder(tmp_path / "out", "tmp") as stage:
        (stage / "a").write_text("1")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o777 & ~mask


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stop_signal_between_the_renames_of_a_swap_waits_until_the_swap_is_done(
        tmp_path, monkeypatch, name):
    """Ctrl-C (or a SIGTERM/SIGHUP that a command takes as one) right after the old folder
    went aside: the new one still takes its place, then the interrupt comes."""
    import signal

    from elmo_tutorial.files import staging
    from elmo_tutorial.runtime import stop_signals_interrupt

    target = _folder(tmp_path / "out", old="1")
    rename = os.rename

    def rename_then_stop(source, dest):
        rename(source, dest)
        if ".aside-" in str(dest):  # the old folder has just gone aside
            signal.raise_signal(getattr(signal, name))

    monkeypatch.setattr(staging.os, "rename", rename_then_stop)
    with pytest.raises(KeyboardInterrupt), stop_signals_interrupt():
        with staged_folder(target, "export", replace=True) as stage:
            (stage / "new").write_text("2")
    assert _contents(target) == {"new": "2"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing aside, nothing ready
