"""The prize ledger gets the session ledger's database guarantees on PostgreSQL.

As in 0002: a deferred constraint trigger checks at commit that the legs of every prize
posting touched by the transaction sum to zero, and prize postings and legs are
append-only (UPDATE and DELETE raise). The append-only function of 0002 is reused.

SQLite has no equivalent; there ``ledger.postings.prizes`` checks the balance in code.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION ledger_check_prize_posting_balanced() RETURNS trigger AS $$
DECLARE total bigint;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_prizeleg
        WHERE posting_id = NEW.posting_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'prize posting % is unbalanced: legs sum to %', NEW.posting_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER ledger_prizeleg_balanced
    AFTER INSERT ON ledger_prizeleg
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_prize_posting_balanced();

CREATE TRIGGER ledger_prizeleg_append_only BEFORE UPDATE OR DELETE ON ledger_prizeleg
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_prizeposting_append_only BEFORE UPDATE OR DELETE ON ledger_prizeposting
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS ledger_prizeposting_append_only ON ledger_prizeposting;
DROP TRIGGER IF EXISTS ledger_prizeleg_append_only ON ledger_prizeleg;
DROP TRIGGER IF EXISTS ledger_prizeleg_balanced ON ledger_prizeleg;
DROP FUNCTION IF EXISTS ledger_check_prize_posting_balanced();
"""


# params=None: the SQL is sent as is (see 0002: RAISE's '%' is not a placeholder).
def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_prize_ledger")]
    operations = [migrations.RunPython(forward, backward)]
