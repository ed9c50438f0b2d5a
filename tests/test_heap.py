"""bourre_site.heap: the app server freezes its long-lived objects at start-up and once
more after its first requests (issue #20). That wsgi.py calls it: tests/test_deploy.py."""

import gc

import pytest
from django.core.signals import request_finished

from bourre_site import heap


def _listening() -> bool:
    return any(key[0] == "bourre_site.heap" for key, *_ in request_finished.receivers)


@pytest.fixture
def freezes(monkeypatch):
    """Count heap's freezes (they still freeze): the permanent generation's size alone
    cannot say whether one happened, since reference counting frees frozen objects that
    other threads of the test process drop (CI once saw it fall by one)."""
    gc.unfreeze()
    calls: list[int] = []
    real = heap.freeze

    def counting() -> None:
        real()
        calls.append(gc.get_freeze_count())

    monkeypatch.setattr(heap, "freeze", counting)
    yield calls
    request_finished.disconnect(dispatch_uid="bourre_site.heap")
    gc.unfreeze()


def test_settle_freezes_at_start_and_again_after_the_warm_requests(freezes):
    heap.settle()
    assert len(freezes) == 1 and freezes[0] > 0 and _listening()
    garbage: list = []
    # The receiver itself, as each request's end calls it (sending request_finished would
    # also run Django's own receivers, which reach for the database).
    for _ in range(heap.WARM_REQUESTS - 1):
        garbage.append([garbage])  # objects created by "requests", still alive
        heap._after_request(sender=None)
    assert len(freezes) == 1  # not yet
    heap._after_request(sender=None)
    assert len(freezes) == 2
    # The requests' live objects joined the permanent generation (far more of them than
    # other threads could free meanwhile).
    assert freezes[1] >= freezes[0] + heap.WARM_REQUESTS - 10
    # Done: later requests leave the heap to the collector.
    assert not _listening()
