"""The site's languages: Sundanese for Django, and the message catalogues compiled at startup.

- Django's ``LANG_INFO`` (``django.conf.locale``) has no Sundanese; ``register_languages``
  adds it when the site starts (``GamesConfig.ready``), so ``get_language_info("su")``
  and the language switcher name it like any other.
- Catalogues are kept as text: ``locale/<lang>/LC_MESSAGES/django.po`` (and Django's own
  words in Sundanese, ``bourre_site/locale_django``). The binary ``.mo`` files gettext
  reads are compiled from them by ``compile_catalogues`` with Babel (``read_po`` and
  ``write_mo``) when the site starts and whenever a ``.po`` is newer than its ``.mo``. So
  a fresh machine needs no GNU gettext for ``make setup``/``make run``, and no generated
  binary is committed (``*.mo`` is in ``.gitignore``). GNU gettext is needed only to
  *extract* messages (``make messages``, ``manage.py makemessages``).
  Why not commit the ``.mo`` files: they are generated, they drift from the ``.po`` under
  review, and a merge conflict in a binary cannot be resolved by reading it.
  Fuzzy entries and empty translations are left out of the ``.mo`` (gettext then shows
  the English); the catalogue tests refuse both in a shipped locale.
- The plural rule gettext applies is the ``.po`` header's ``Plural-Forms`` (Babel keeps
  it; Sundanese's ``nplurals=1; plural=0;`` is stated there, so nothing depends on
  Babel's CLDR data knowing ``su``). A catalogue with more plural forms than that, or a
  malformed line, is refused (``PoFileError``; Babel would only print a warning and drop
  the extra form); a plural entry with fewer forms, or an empty one, is left out.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

logger = logging.getLogger(__name__)

# Sundanese, in the shape of django.conf.locale.LANG_INFO's entries.
EXTRA_LANG_INFO = {
    "su": {"bidi": False, "code": "su", "name": "Sundanese", "name_local": "Basa Sunda"},
}


def register_languages() -> None:
    """Add the languages Django does not know to its LANG_INFO (idempotent)."""
    from django.conf.locale import LANG_INFO

    for code, info in EXTRA_LANG_INFO.items():
        LANG_INFO.setdefault(code, info)


def read_catalogue(po: Path) -> Catalog:
    """The catalogue of a .po file (Babel's; obsolete ``#~`` entries kept apart).

    Strict: a plural entry with more forms than the header's ``nplurals`` (a wrong
    Plural-Forms, say) or a malformed line raises ``babel.messages.pofile.PoFileError``."""
    with po.open("rb") as source:
        return read_po(source, abort_invalid=True)


def _translated(string: str | tuple[str, ...] | list[str] | None) -> bool:
    if string is None:
        return False
    forms = (string,) if isinstance(string, str) else tuple(string)
    return bool(forms) and all(forms)


def mo_bytes(catalog: Catalog) -> bytes:
    """A GNU .mo catalogue of the translated, non-fuzzy entries (and the header).

    Babel's ``write_mo`` leaves out fuzzy and empty singular entries; a plural entry
    with an empty (or missing) form is dropped here too, so gettext shows the English
    rather than a blank."""
    for message in list(catalog)[1:]:
        if not _translated(message.string):
            catalog.delete(message.id, context=message.context)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def compile_po(po: Path) -> Path:
    """Write po's .mo beside it, atomically (several server processes may start at once)."""
    mo = po.with_suffix(".mo")
    data = mo_bytes(read_catalogue(po))
    fd, tmp = tempfile.mkstemp(dir=po.parent, prefix=".django-", suffix=".mo")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, mo)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return mo


def compile_catalogues(*roots: Path) -> list[Path]:
    """Compile every .po under the roots whose .mo is missing or older; the compiled ones.

    A read-only install (a container image built with the .mo files already compiled) is
    left alone: a failure to write is logged, never fatal."""
    done = []
    for root in roots:
        for po in sorted(Path(root).glob("*/LC_MESSAGES/*.po")):
            mo = po.with_suffix(".mo")
            if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
                continue
            try:
                done.append(compile_po(po))
            except OSError as exc:
                logger.warning("could not compile %s: %s", po, exc)
    return done
