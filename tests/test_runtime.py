"""setup_notebook returns the device ELMO_TUTORIAL_DEVICE names, and refuses unusable ones;
default_threads; the stop signals."""

import pytest
import torch

from elmo_tutorial.runtime import setup_notebook


def test_default_device_is_the_cpu(monkeypatch, keep_threads):
    monkeypatch.delenv("ELMO_TUTORIAL_DEVICE", raising=False)
    assert setup_notebook(seed=0) == torch.device("cpu")
    monkeypatch.setenv("ELMO_TUTORIAL_DEVICE", "cpu")
    assert setup_notebook(seed=0) == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_unusable_device_is_a_clear_error(monkeypatch, keep_threads):
    monkeypatch.setenv("ELMO_TUTORIAL_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="cannot use that device"):
        setup_notebook()
    monkeypatch.setenv("ELMO_TUTORIAL_DEVICE", "gpu please")
    with pytest.raises(RuntimeError, match="not a device name"):
        setup_notebook()


@pytest.mark.parametrize("cores, processes, expected", [(8, 1, 8), (8, 2, 4), (2, 4, 1)])
def test_default_threads_is_one_per_core_shared_by_the_processes(monkeypatch, cores, processes,
                                                                  expected):
    from elmo_tutorial import runtime

    monkeypatch.setattr(runtime, "available_cores", lambda: cores)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", str(processes))
    assert runtime.default_threads() == expected


# -- stop signals ----------------------------------------------------------------------------------

@pytest.fixture
def own_sigterm():
    """A handler of the caller's own for SIGTERM (a notebook's, a test runner's)."""
    import signal

    def mine(signum, frame):
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    yield mine
    signal.signal(signal.SIGTERM, previous)


def test_sigterm_is_a_stop_request_and_the_callers_handlers_come_back(own_sigterm):
    import signal

    from elmo_tutorial.runtime import interrupt_requests

    sigint = signal.getsignal(signal.SIGINT)
    with interrupt_requests() as stop_requested:
        assert stop_requested() == ""
        signal.raise_signal(signal.SIGTERM)
        assert stop_requested() == "SIGTERM"
        with pytest.raises(KeyboardInterrupt):  # a second one stops at once
            signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is own_sigterm
    assert signal.getsignal(signal.SIGINT) is sigint


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="no SIGHUP here")
def test_a_stop_signal_that_is_ignored_stays_ignored():
    import signal

    from elmo_tutorial.runtime import interrupt_requests

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        with interrupt_requests() as stop_requested:
            signal.raise_signal(signal.SIGHUP)
            assert stop_requested() == ""
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_outside_the_main_thread_no_handler_is_installed(own_sigterm):
    import signal
    import threading

    from elmo_tutorial.runtime import interrupt_requests, stop_signals_interrupt

    seen = []

    def in_a_thread():
        with stop_signals_interrupt(), interrupt_requests() as stop_requested:
            seen.append((stop_requested(), signal.getsignal(signal.SIGTERM)))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [("", own_sigterm)]


def test_a_command_stops_on_sigterm_as_on_ctrl_c(own_sigterm):
    import signal

    from elmo_tutorial.runtime import stop_signals_interrupt

    with pytest.raises(KeyboardInterrupt), stop_signals_interrupt():
        signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is own_sigterm
