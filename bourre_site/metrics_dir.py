"""The folder where gunicorn's workers write their Prometheus counts (standard library only).

prometheus_client adds up the workers' counts at a scrape only when every worker writes
them to one folder named by ``PROMETHEUS_MULTIPROC_DIR``; without it, ``/metrics`` answers
with the counts of whichever worker took the scrape. Both servers set it before their
workers fork: ``make run`` (``bourre_site.lan``) and the club server's or a platform's
gunicorn (``deploy/gunicorn.conf.py``), unless the environment already names a folder.
It is set in the master before the app is imported, since ``bourre_site.metrics`` reads
the variable once, at import.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def metrics_folder() -> str:
    """A fresh folder for prometheus_client's multiprocess files, removed when the server
    stops. The workers are forks that inherit the exit hook: only this process removes it
    (a worker replaced after a crash must not take its siblings' counts along)."""
    folder = tempfile.mkdtemp(prefix="bourre-metrics-")
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


def ensure_metrics_folder() -> str:
    """``PROMETHEUS_MULTIPROC_DIR`` as the environment names it, else a fresh folder (set
    in the environment, so the workers forked afterwards inherit it)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if not folder:
        folder = os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_folder()
    return folder
