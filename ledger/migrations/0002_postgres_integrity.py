"""Database-enforced ledger integrity on PostgreSQL.

- A deferred constraint trigger checks at commit that the legs of every posting touched
  by the transaction sum to zero, so no code path (nor a hand-typed SQL statement) can
  leave an unbalanced posting behind.
- Postings and legs are append-only: UPDATE and DELETE raise. (TRUNCATE, used by test
  teardown, is not a row operation and still works.)

SQLite has no equivalent; there `ledger.postings` checks the same in code.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION ledger_check_posting_balanced() RETURNS trigger AS $$
DECLARE total bigint;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_leg WHERE posting_id = NEW.posting_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger posting % is unbalanced: legs sum to %', NEW.posting_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER ledger_leg_balanced
    AFTER INSERT ON ledger_leg
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_posting_balanced();

CREATE OR REPLACE FUNCTION ledger_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_leg_append_only BEFORE UPDATE OR DELETE ON ledger_leg
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_posting_append_only BEFORE UPDATE OR DELETE ON ledger_posting
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS ledger_posting_append_only ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_leg_append_only ON ledger_leg;
DROP FUNCTION IF EXISTS ledger_append_only();
DROP TRIGGER IF EXISTS ledger_leg_balanced ON ledger_leg;
DROP FUNCTION IF EXISTS ledger_check_posting_balanced();
"""


# params=None: the SQL is sent as is. With the default params=() the PostgreSQL schema
# editor merges parameters client-side and takes RAISE's '%' for a placeholder.
def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
