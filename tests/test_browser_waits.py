"""The real-browser tests' idle wait reads the server's messages (``tests/_browser.RunLog``).

No browser here: the log is fed the serialised messages Streamlit sends and receives over its
websocket, in the orders a session produces them, and must say "settled" exactly when no run
is going and none is about to start.
"""

from __future__ import annotations

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests import _browser


def _rerun_request() -> bytes:
    message = BackMsg()
    message.rerun_script.query_string = "dataset=sample%3Aplanted"
    return message.SerializeToString()


def _started() -> bytes:
    message = ForwardMsg()
    message.new_session.page_script_hash = "page"
    return message.SerializeToString()


def _finished(status: int) -> bytes:
    message = ForwardMsg()
    message.script_finished = status
    return message.SerializeToString()


def _other() -> bytes:
    message = ForwardMsg()
    message.session_status_changed.script_is_running = False
    return message.SerializeToString()


def test_a_run_the_script_requests_keeps_the_log_unsettled_until_that_run_ends():
    log = _browser.RunLog()
    assert log.settled()  # nothing asked for yet
    log.sent(_rerun_request())  # the page opens
    assert not log.settled()
    log.received(_started())
    assert not log.settled()  # running
    # the router's st.rerun(): the page shows notRunning here, yet a run is about to start
    log.received(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    log.received(_other())
    assert not log.settled()
    log.received(_started())
    assert not log.settled()
    log.received(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    log.received(_other())
    assert log.settled()


def test_a_rerun_asked_for_by_the_browser_is_waited_for(monkeypatch):
    log = _browser.RunLog()
    log.sent(_rerun_request())
    log.received(_started())
    log.received(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert log.settled()
    log.sent(_rerun_request())  # a widget changed: the run has not started yet
    assert not log.settled()
    log.received(_started())
    log.received(_finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))  # a fragment's run
    assert log.settled()


def test_a_browser_request_never_answered_counts_as_dropped_but_a_script_rerun_never(
    monkeypatch,
):
    log = _browser.RunLog()
    log.sent(_rerun_request())
    assert not log.settled()
    monkeypatch.setattr(_browser, "DROPPED_REQUEST_S", 0.0)
    assert log.settled()  # Streamlit drops a fragment's rerun once the fragment is gone
    # a run ended early for a rerun is always followed by that run: no such fallback
    log.received(_started())
    log.received(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert not log.settled()


@pytest.mark.parametrize(
    "status",
    [ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR],
)
def test_every_final_status_ends_a_run(status):
    log = _browser.RunLog()
    log.sent(_rerun_request())
    log.received(_started())
    log.received(_finished(status))
    assert log.settled()


def test_a_mark_sees_a_run_asked_for_after_it_and_none_before():
    log = _browser.RunLog()
    log.sent(_rerun_request())  # the page opens
    log.received(_started())
    log.received(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    mark = log.events  # what runs_so_far keeps, before a click
    assert not log.asked_since(mark)
    log.received(_other())  # no run: a status message
    assert not log.asked_since(mark)
    log.sent(_rerun_request())  # the click's request: the server's word, seen or not on screen
    assert log.asked_since(mark)
    # a run the script asks for (st.rerun) counts too, and a mark taken after it does not
    later = log.events
    log.received(_started())
    log.received(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert log.asked_since(later) and not log.asked_since(log.events)
