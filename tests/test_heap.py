"""bourre_site.heap: the app server freezes its long-lived objects at start-up and once
more after its first requests (issue #20). That wsgi.py calls it: tests/test_deploy.py."""

import gc

import pytest
from django.core.signals import request_finished

from bourre_site import heap


def _listening() -> bool:
    return any(key[0] == "bourre_site.heap" for key, *_ in request_finished.receivers)


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    request_finished.disconnect(dispatch_uid="bourre_site.heap")
    gc.unfreeze()


def test_settle_freezes_at_start_and_again_after_the_warm_requests(unfrozen):
    heap.settle()
    at_start = gc.get_freeze_count()
    assert at_start > 0 and _listening()
    garbage: list = []
    # The receiver itself, as each request's end calls it (sending request_finished would
    # also run Django's own receivers, which reach for the database).
    for _ in range(heap.WARM_REQUESTS - 1):
        garbage.append([garbage])  # objects created by "requests"
        heap._after_request(sender=None)
    assert gc.get_freeze_count() == at_start  # not yet
    heap._after_request(sender=None)
    assert gc.get_freeze_count() > at_start
    # Done: later requests leave the heap to the collector.
    assert not _listening()
