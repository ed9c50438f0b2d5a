"""A deleted account's name out of the prize ledger's memos (issue #33).

On PostgreSQL ``ledger_prizeposting`` was append-only for every column (ledger 0005).
Anonymising a deleted member (games.clubs.account_service) rewrites the name in a prize
posting's ``memo`` and ``memo_params``; every other column, and every leg, stays
append-only. The trigger now lets an UPDATE through only when nothing but those two
columns changes; DELETE is refused as before. SQLite has no triggers here (the ledger
package is the only writer there, ledger 0002).
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION ledger_prizeposting_memo_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND
       (NEW.id, NEW.tournament_id, NEW.kind, NEW.player_id, NEW.created_by_id,
        NEW.created_at, NEW.memo_kind)
       IS NOT DISTINCT FROM
       (OLD.id, OLD.tournament_id, OLD.kind, OLD.player_id, OLD.created_by_id,
        OLD.created_at, OLD.memo_kind) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the ledger is append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS ledger_prizeposting_append_only ON ledger_prizeposting;
CREATE TRIGGER ledger_prizeposting_append_only BEFORE UPDATE OR DELETE ON ledger_prizeposting
    FOR EACH ROW EXECUTE FUNCTION ledger_prizeposting_memo_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS ledger_prizeposting_append_only ON ledger_prizeposting;
CREATE TRIGGER ledger_prizeposting_append_only BEFORE UPDATE OR DELETE ON ledger_prizeposting
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
DROP FUNCTION IF EXISTS ledger_prizeposting_memo_only();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0010_i34_tab")]

    operations = [migrations.RunPython(forward, backward)]
