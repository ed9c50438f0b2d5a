"""An app server's long-lived objects, out of the garbage collector's way (issue #20).

CPython's cycle collector walks every object of the generations it collects, and a full
collection walks them all. Once Django, the app and the URLconf are loaded, a gunicorn
worker holds about 120,000 such objects, all alive until the worker ends, and the
collections that requests' own allocations set off keep walking them. ``gc.freeze()``
moves every object that exists at that moment into a permanent generation the
collector never walks (they are still freed by reference counting), so later
collections only walk what requests create. Measured in a gunicorn worker with
``gc.callbacks`` (bench/load.py's server, 400 hands each a form GET and a record POST):
0.35 ms of collection per hand before, 0.17 ms after; a few per cent of the worker's
CPU, for two calls at start-up.

``settle()`` freezes when the WSGI application has been built (imports, settings, the
URLconf), and once more after the worker's first ``WARM_REQUESTS`` requests, which load
templates and catalogues lazily. Each freeze is preceded by a collection, so no garbage
is frozen. Called by wsgi.py (gunicorn, ``make run``) and bench/_serve.py; tests and
``runserver`` keep the collector as CPython sets it.
"""

from __future__ import annotations

import gc
import threading

from django.core.signals import request_finished
from django.urls import get_resolver

WARM_REQUESTS = 50
DISPATCH_UID = "bourre_site.heap"

_lock = threading.Lock()
_served = 0


def freeze() -> None:
    gc.collect()
    gc.freeze()


def _after_request(sender, **kwargs) -> None:
    # The request that is finishing may still be referenced here and be frozen with the
    # rest: if it holds cycles, a few kilobytes stay for the worker's life, once.
    global _served
    with _lock:
        _served += 1
        if _served != WARM_REQUESTS:
            return
    request_finished.disconnect(dispatch_uid=DISPATCH_UID)
    freeze()


def settle() -> None:
    """Freeze now (the URLconf loaded first), and again after the first requests."""
    global _served
    get_resolver().url_patterns  # noqa: B018 (imports every view module)
    freeze()
    with _lock:
        _served = 0
    request_finished.connect(_after_request, dispatch_uid=DISPATCH_UID)
