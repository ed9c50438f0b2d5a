"""The site's languages: Sundanese for Django, and the message catalogues compiled at startup.

- Django's ``LANG_INFO`` (``django.conf.locale``) has no Sundanese; ``register_languages``
  adds it when the site starts (``GamesConfig.ready``), so ``get_language_info("su")``
  and the language switcher name it like any other.
- Catalogues are kept as text: ``locale/<lang>/LC_MESSAGES/django.po``. The binary
  ``.mo`` files gettext reads are compiled from them by ``compile_catalogues`` (a small
  pure-Python msgfmt) when the site starts and whenever a ``.po`` is newer than its
  ``.mo``. So a fresh machine needs no GNU gettext for ``make setup``/``make run``, and no
  generated binary is committed (``*.mo`` is in ``.gitignore``). GNU gettext is needed only
  to *extract* messages (``make messages``, ``manage.py makemessages``).
  Why not commit the ``.mo`` files: they are generated, they drift from the ``.po`` under
  review, and a merge conflict in a binary cannot be resolved by reading it.
  Fuzzy entries and empty translations are left out of the ``.mo`` (gettext then shows
  the English); the catalogue tests refuse both in a shipped locale.
"""

from __future__ import annotations

import ast
import logging
import os
import struct
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

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


# -- .po reading -----------------------------------------------------------------------------


@dataclass
class PoEntry:
    msgid: str
    msgstr: list[str]
    msgctxt: str | None = None
    msgid_plural: str | None = None
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def translated(self) -> bool:
        return all(self.msgstr) and bool(self.msgstr)


def _unquote(text: str, where: str) -> str:
    text = text.strip()
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        raise ValueError(f"{where}: expected a quoted string, got {text!r}")
    return ast.literal_eval(text)


def read_po(path: Path) -> list[PoEntry]:
    """The entries of a .po file, header included (msgid ""), obsolete (#~) ones left out."""
    entries: list[PoEntry] = []
    flags: set[str] = set()
    current: dict[str, object] | None = None
    key: str | None = None
    start = 0

    def finish() -> None:
        nonlocal current, flags
        if current is not None and "msgid" in current:
            strs = current.get("msgstr", {})
            assert isinstance(strs, dict)
            entries.append(
                PoEntry(
                    msgid=str(current["msgid"]),
                    msgstr=[strs[i] for i in sorted(strs)],
                    msgctxt=current.get("msgctxt"),  # type: ignore[arg-type]
                    msgid_plural=current.get("msgid_plural"),  # type: ignore[arg-type]
                    flags=flags,
                    line=start,
                )
            )
        current, flags = None, set()

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{number}"
        if not line:
            continue
        if line.startswith("#,"):
            if current is not None and "msgstr" in current:
                finish()
            flags |= {f.strip() for f in line[2:].split(",")}
            continue
        if line.startswith("#"):
            if current is not None and "msgstr" in current:
                finish()
            continue
        if line.startswith('"'):
            if current is None or key is None:
                raise ValueError(f"{where}: continuation line outside an entry")
            piece = _unquote(line, where)
            if key.startswith("msgstr"):
                strs = current["msgstr"]
                assert isinstance(strs, dict)
                index = int(key[7:-1]) if key != "msgstr" else 0
                strs[index] += piece
            else:
                current[key] = str(current[key]) + piece
            continue
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgctxt", "msgid") and current is not None and "msgstr" in current:
            finish()
        if current is None:
            current, start = {}, number
        if keyword.startswith("msgstr"):
            index = int(keyword[7:-1]) if keyword != "msgstr" else 0
            current.setdefault("msgstr", {})[index] = _unquote(rest, where)  # type: ignore[index]
        elif keyword in ("msgctxt", "msgid", "msgid_plural"):
            current[keyword] = _unquote(rest, where)
        else:
            raise ValueError(f"{where}: unknown keyword {keyword!r}")
        key = keyword
    finish()
    return entries


# -- .mo writing -----------------------------------------------------------------------------


def mo_bytes(entries: list[PoEntry]) -> bytes:
    """A GNU .mo catalogue of the translated, non-fuzzy entries (and the header)."""
    pairs: dict[bytes, bytes] = {}
    for e in entries:
        if e.fuzzy and e.msgid:
            continue
        if e.msgid and not e.translated:
            continue
        source = e.msgid
        if e.msgid_plural is not None:
            source += "\0" + e.msgid_plural
        if e.msgctxt is not None:
            source = e.msgctxt + "\x04" + source
        pairs[source.encode()] = "\0".join(e.msgstr).encode()
    keys = sorted(pairs)
    ids = b""
    strs = b""
    offsets = []
    for k in keys:
        offsets.append((len(ids), len(k), len(strs), len(pairs[k])))
        ids += k + b"\0"
        strs += pairs[k] + b"\0"
    n = len(keys)
    key_start = 7 * 4 + 16 * n
    value_start = key_start + len(ids)
    key_table = []
    value_table = []
    for id_off, id_len, str_off, str_len in offsets:
        key_table += [id_len, key_start + id_off]
        value_table += [str_len, value_start + str_off]
    header = struct.pack("Iiiiiii", 0x950412DE, 0, n, 7 * 4, 7 * 4 + n * 8, 0, 0)
    return (
        header
        + struct.pack(f"{len(key_table)}i", *key_table)
        + struct.pack(f"{len(value_table)}i", *value_table)
        + ids
        + strs
    )


def compile_po(po: Path) -> Path:
    """Write po's .mo beside it, atomically (several server processes may start at once)."""
    mo = po.with_suffix(".mo")
    data = mo_bytes(read_po(po))
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
