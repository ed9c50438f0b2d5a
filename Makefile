# `make run`: set up, migrate the embedded SQLite database, load demo data, and serve the
#   phones on this Wi-Fi (all interfaces, PORT=8000, no DEBUG; bourre_site/lan.py).
# `make dev`: the developer's runserver with DEBUG on 127.0.0.1:8000 (HOST=...).
# `make test`: set up and run the whole suite (DATABASE_URL selects PostgreSQL), on
#   TEST_WORKERS processes (pytest-xdist; 2, one per core here; TEST_WORKERS=0: one process).
# `make lint`: ruff and mypy for the Python, djlint's format check and linter for templates/.
# `make messages`: re-extract the translatable texts into locale/*/LC_MESSAGES/django.po
#   (needs GNU gettext); the .mo files are compiled at startup by Babel (bourre_site/i18n.py).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000
PORT ?= 8000
# The suite waits on browsers, servers and PostgreSQL as much as it computes: two
# processes finish it in about three quarters of the time of one on a 2-core machine.
TEST_WORKERS ?= 2

.PHONY: setup setup-test run dev test lint format bench clean backup restore check-books messages

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test]'
	touch $@

setup: $(VENV)/.installed

setup-test: $(VENV)/.installed-test

run: setup
	PORT=$(PORT) $(PY) -m bourre_site.lan

dev: setup
	DJANGO_DEBUG=1 $(PY) manage.py migrate --noinput
	DJANGO_DEBUG=1 $(PY) manage.py seed_demo --url http://$(HOST)/
	DJANGO_DEBUG=1 $(PY) manage.py runserver $(HOST)

test: setup-test
	$(PY) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# Backups of the configured database (SQLite file or PostgreSQL via pg_dump/pg_restore);
# see games/management/commands/backup.py and restore.py.
backup: setup
	$(PY) manage.py backup $(if $(FILE),--output $(FILE))

# YES=1 answers the confirmation (cron, CI: without a terminal and without it, restore
# refuses and says so).
restore: setup
	@test -n "$(FILE)" || { echo "usage: make restore FILE=backups/bourre-....sqlite3|.pgdump [YES=1]"; exit 2; }
	$(PY) manage.py restore $(FILE) $(if $(filter 1 y yes true,$(YES)),--yes)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py check_books

check-books: setup
	$(PY) manage.py check_books

# Templates: djlint's Django profile, configured in pyproject.toml ([tool.djlint]): `make lint`
# checks their format (idempotent: a second --reformat changes nothing) and lints them, `make
# format` reformats them. Every template is formatted; the few spots whose exact whitespace
# the pages or view tests rely on sit between {# djlint:off #} and {# djlint:on #}.
lint: setup-test
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) -m djlint templates --check
	$(PY) -m djlint templates --lint

format: setup-test
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .
	$(PY) -m djlint templates --reformat --quiet

LOCALES := es fi sq ko su
messages: setup
	DJANGO_DEBUG=1 $(PY) manage.py makemessages $(addprefix -l ,$(LOCALES)) --add-location file \
		-i staticfiles -i bench -i tests --no-obsolete

bench: setup-test
	for f in bench/[!_]*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache .hypothesis
	find locale -name "*.mo" -delete
