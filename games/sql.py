"""A multi-row INSERT without the ORM's per-call overhead, for the hottest writes.

``Model.objects.bulk_create`` costs about as much Python as a small insert costs the
database; a digital move and a recorded hand each run one or two such inserts while a
phone waits (bench/digital.py, bench/web.py). ``insert_rows`` writes the same rows with
one statement. Values go through each field's ``get_db_prep_save`` (so datetimes, JSON
and foreign keys are adapted exactly as the ORM adapts them), names come from the
model's ``_meta``, and the SQL is portable between PostgreSQL and SQLite 3.35+.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model) -> str:
    return quote(model._meta.db_table)


def column(model, field: str) -> str:
    return quote(model._meta.get_field(field).column)


def insert_rows(
    model, fields: Sequence[str], rows: Sequence[Sequence[object]], returning: bool = False
) -> list[int]:
    """INSERT ``rows`` (one value per field, in order) in one statement; returns the new
    ids in row order when ``returning`` (RETURNING keeps the order of VALUES on both
    databases, which Django's own bulk_create relies on too)."""
    if not rows:
        return []
    meta = [model._meta.get_field(f) for f in fields]
    params: list[object] = []
    for row in rows:
        params += [f.get_db_prep_save(v, connection) for f, v in zip(meta, row, strict=True)]
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {table(model)} ({', '.join(quote(f.column) for f in meta)}) "
        f"VALUES {', '.join([one] * len(rows))}"
    )
    with connection.cursor() as cursor:
        if not returning:
            cursor.execute(sql, params)
            return []
        cursor.execute(sql + f" RETURNING {column(model, 'id')}", params)
        return [row[0] for row in cursor.fetchall()]
