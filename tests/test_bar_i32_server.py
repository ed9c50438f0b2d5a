"""The bar of issue #32 for the club server and the Procfile, as fast static checks.

- the Procfile (read by honcho's own parser): ``web`` binds ``0.0.0.0:$PORT`` with the
  shared gunicorn settings, ``worker`` loops over the webhook outbox, ``release`` migrates;
- ``deploy/install.sh`` parses (``bash -n``; shellcheck where installed), its ``--dry-run``
  prints every step in order and changes nothing, and an upgrade backs up first;
- the Caddyfile it renders (public domain and LAN name) is accepted by Caddy (``caddy
  adapt``, where Caddy is installed) with compression, the loopback upstream and the
  right kind of certificate;
- the systemd units it renders pass ``systemd-analyze verify`` (where present) and carry
  what a clean restart needs (KillMode=mixed, Restart=on-failure, the socket systemd holds);
- the settings it writes pass ``check --deploy`` and trust exactly the proxy Caddy is.

The https stack itself (honcho, Caddy, PostgreSQL, Redis, Chromium) is
tests/deploy/test_https_stack.py.
"""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "deploy" / "install.sh"
UNITS = sorted(p.name for p in (ROOT / "deploy" / "systemd").iterdir())


def _install(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(INSTALL), *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _printed(*args: str, env: dict[str, str] | None = None) -> str:
    result = _install("--print", *args, env=env)
    assert result.returncode == 0, result.stderr
    assert not re.search(r"@[A-Z_]+@", result.stdout), "a template field was left unfilled"
    return result.stdout


def _unit(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string(text)
    return parser


# -- the Procfile ------------------------------------------------------------------------------


def test_procfile_web_on_port_worker_and_release_that_migrates() -> None:
    from honcho.environ import parse_procfile

    procfile = parse_procfile((ROOT / "Procfile").read_text())
    web, worker, release = (procfile.processes[n] for n in ("web", "worker", "release"))
    assert web.startswith("gunicorn ") and "--bind 0.0.0.0:$PORT" in web
    assert "--config deploy/gunicorn.conf.py" in web and web.endswith(" bourre_site.wsgi")
    assert worker.split()[1:4] == ["manage.py", "deliver_webhooks", "--loop"]
    assert release.split()[1:] == ["manage.py", "migrate", "--noinput"]
    assert set(procfile.processes) == {"web", "worker", "release"}


def test_platforms_find_the_python_and_the_dependencies() -> None:
    version = (ROOT / ".python-version").read_text().strip()
    assert re.fullmatch(r"3\.\d+", version)
    requires = re.search(r'requires-python = ">=(3\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert requires and tuple(map(int, version.split("."))) >= tuple(
        map(int, requires.group(1).split("."))
    )
    lines = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.strip()]
    assert [line for line in lines if not line.startswith("#")] == ["."]


def _gunicorn_config(monkeypatch: pytest.MonkeyPatch, folder: str = "") -> dict[str, object]:
    """deploy/gunicorn.conf.py run as gunicorn runs it (a module with its ``__file__``),
    with ``PROMETHEUS_MULTIPROC_DIR`` as given: what it sets stays inside the test."""
    if folder:
        monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", folder)
    else:
        monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    path = ROOT / "deploy" / "gunicorn.conf.py"
    config: dict[str, object] = {"__file__": str(path), "__name__": "gunicorn_conf"}
    exec(compile(path.read_text(), str(path), "exec"), config)
    return config


def test_gunicorn_stops_within_systemds_patience(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _gunicorn_config(monkeypatch)
    assert config["worker_class"] == "gthread"
    assert "bind" not in config  # the Procfile binds $PORT; systemd hands over its socket
    service = _unit(_printed("bourre-web.service"))["Service"]
    timeout_stop = int(service["TimeoutStopSec"])
    assert isinstance(config["graceful_timeout"], int) and config["graceful_timeout"] < timeout_stop


def test_gunicorn_opens_no_control_socket_in_a_home_it_cannot_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """gunicorn >= 25 puts a control socket in $HOME/.gunicorn; the bourre user's home is
    root's (found by running deploy/install.sh in a Debian chroot): read by gunicorn's
    own Config, so a misspelt setting would not pass."""
    from gunicorn.config import Config

    config = _gunicorn_config(monkeypatch)
    cfg = Config()
    assert "control_socket_disable" in cfg.settings
    for name, value in config.items():
        if name in cfg.settings:
            cfg.set(name, value)
    assert cfg.control_socket_disable is True


def test_gunicorns_workers_share_one_metrics_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Seen in the Debian chroot run: each of the club server's workers answered /metrics
    with its own counts. The config makes one folder for all of them before they fork
    (bourre_site.metrics_dir), and keeps a folder the environment already names."""
    _gunicorn_config(monkeypatch)
    made = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    assert made and Path(made).is_dir() and not any(Path(made).iterdir())
    _gunicorn_config(monkeypatch, folder=str(tmp_path))
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(tmp_path)


# -- the install script ------------------------------------------------------------------------


def test_install_script_parses() -> None:
    result = subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "set -euo pipefail" in INSTALL.read_text()
    if shutil.which("shellcheck"):
        check = subprocess.run(["shellcheck", str(INSTALL)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout


def _steps(output: str) -> list[str]:
    return [line.split(". ", 1)[1] for line in output.splitlines() if line.startswith("== ")]


def test_dry_run_prints_every_step_of_a_first_install_in_order(tmp_path: Path) -> None:
    result = _install(
        "--dry-run", "--lan", "bourre.local", env={"BOURRE_ETC_DIR": str(tmp_path / "etc")}
    )
    assert result.returncode == 0, result.stderr
    steps = _steps(result.stdout)
    expected = [
        "Install the packages",
        "Create the system user",
        "Copy this release",
        "The virtualenv",
        "The settings",
        "PostgreSQL",
        "Static files",  # before the service's user runs manage.py (the catalogues)
        "Migrate",
        "The systemd units",
        "Caddy",
        "Is it up?",
    ]
    assert [next(e for e in expected if s.startswith(e)) for s in steps] == expected
    out = result.stdout
    assert "+ apt-get update" in out and "postgresql redis-server caddy" in out
    assert "+ useradd --system" in out and "(a new secret key)" in out
    assert "write " + str(tmp_path / "etc" / "env") + " (mode 0600" in out
    assert "+ /usr/local/bin/bourre-manage migrate --noinput" in out
    assert "collectstatic --noinput" in out
    assert "systemctl enable --now bourre-web.socket" in out
    assert "Back up" not in out  # nothing to back up the first time
    assert not (tmp_path / "etc").exists()  # a dry run writes nothing


def test_dry_run_of_an_upgrade_backs_up_first_keeps_the_key_and_restarts_last(
    tmp_path: Path,
) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "env").write_text("DJANGO_SECRET_KEY=kept\nDJANGO_EMAIL_HOST=smtp.example.com\n")
    (etc / "install.conf").write_text("DOMAIN=\nLAN_NAME=club.local\n")
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in etc.iterdir()}
    result = _install("--dry-run", env={"BOURRE_ETC_DIR": str(etc)})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Upgrading the club server for club.local" in out  # the name given the first time
    assert _steps(out)[0].startswith("Back up the database")
    lines = out.splitlines()

    def first(text: str) -> int:
        return next(i for i, line in enumerate(lines) if text in line)

    assert (
        first("bourre-manage backup --dir /var/backups/bourre --keep 14")
        < first("apt-get install -y")
        < first("+ rsync")
        < first("bourre-manage migrate")
        < first("systemctl restart bourre-web.service bourre-worker.service")
    )
    assert "(the secret key is kept" in out
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in etc.iterdir()} == before
    # A stopped PostgreSQL would pass for "no database yet" and skip the backup.
    assert first("systemctl enable --now postgresql") < first("bourre-manage backup")


def test_without_systemd_services_start_from_init_scripts_and_the_rest_by_hand(
    tmp_path: Path,
) -> None:
    """A chroot or a container (no systemd): no systemctl call would work, so none is made;
    the commands printed for the web app and the worker are the units' own ExecStart."""
    result = _install(
        "--dry-run",
        "--no-systemd",
        "--lan",
        "bourre.local",
        env={"BOURRE_ETC_DIR": str(tmp_path / "etc")},
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "systemctl" not in out
    assert "+ service postgresql start" in out and "+ service redis-server start" in out
    assert _steps(out)[-1].startswith("Caddy")  # nothing to check until started by hand
    assert "write /etc/systemd/system/bourre-web.service" in out  # ready for a later boot
    for unit, extra in (
        ("bourre-web.service", " --bind 127.0.0.1:8001"),
        ("bourre-worker.service", ""),
    ):
        exec_start = _unit(_printed(unit))["Service"]["ExecStart"]
        assert f"exec runuser -u bourre -- {exec_start}{extra}' &" in out
    assert "caddy run --config /etc/caddy/Caddyfile &" in out
    assert "caddy reload" not in out  # nothing runs yet the first time
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "env").write_text("DJANGO_SECRET_KEY=kept\n")
    upgrade = _install(
        "--dry-run",
        "--no-systemd",
        "--lan",
        "bourre.local",
        env={"BOURRE_ETC_DIR": str(tmp_path / "etc")},
    )
    assert upgrade.returncode == 0, upgrade.stderr
    # The Caddy started last time is still listening: it reloads instead of a second start.
    assert "caddy reload --config /etc/caddy/Caddyfile" in upgrade.stdout


def test_install_refuses_without_a_name_or_with_a_bad_one(tmp_path: Path) -> None:
    env = {"BOURRE_ETC_DIR": str(tmp_path / "etc")}
    missing = _install("--dry-run", env=env)
    assert missing.returncode != 0 and "--domain NAME" in missing.stderr
    bad = _install("--dry-run", "--domain", "bourre example.com", env=env)
    assert bad.returncode != 0 and "is not a host name" in bad.stderr
    both = _install("--dry-run", "--domain", "a.example.com", "--lan", "b.local", env=env)
    assert both.returncode != 0 and "not both" in both.stderr


# -- Caddy ------------------------------------------------------------------------------------


def _adapt(caddyfile: str, tmp_path: Path) -> dict:
    if not shutil.which("caddy"):
        if os.environ.get("CI") == "true":
            pytest.fail("Caddy is required in CI (.ci/run installs Debian's caddy)")
        pytest.skip("caddy is not installed (apt-get install caddy)")
    path = tmp_path / "Caddyfile"
    path.write_text(caddyfile)
    result = subprocess.run(
        ["caddy", "adapt", "--adapter", "caddyfile", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "not formatted" not in result.stderr  # what `caddy fmt` would write
    return json.loads(result.stdout)


def _walk(node: object):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _handlers(config: dict, name: str) -> list[dict]:
    return [n for n in _walk(config) if n.get("handler") == name]


def test_caddy_accepts_the_lan_caddyfile(tmp_path: Path) -> None:
    config = _adapt(_printed("caddyfile", "--lan", "bourre.local"), tmp_path)
    (encode,) = _handlers(config, "encode")
    assert set(encode["encodings"]) == {"zstd", "gzip"}
    (proxy,) = _handlers(config, "reverse_proxy")
    assert proxy["upstreams"] == [{"dial": "127.0.0.1:8001"}]
    issuers = [i["module"] for n in _walk(config) for i in n.get("issuers", [])]
    assert issuers == ["internal"]  # tls internal: Caddy's own authority
    (served,) = [h for h in _handlers(config, "file_server") if "precompressed" in h]
    roots = {n["root"] for n in _walk(config) if isinstance(n.get("root"), str)}
    assert "/srv/bourre/app/staticfiles" in roots
    assert set(served["precompressed"]) == {"br", "gzip"}
    ages = {v for h in _handlers(config, "headers") for v in _cache_controls(h)}
    assert ages == {"public, max-age=31536000, immutable", "public, max-age=60"}
    redirects = [
        h for h in _handlers(config, "static_response") if h.get("status_code") in (308, "308")
    ]
    assert redirects, "plain http on the LAN sends everything but /ca.crt to https"


def _cache_controls(handler: dict) -> list[str]:
    return handler.get("response", {}).get("set", {}).get("Cache-Control", [])


def test_caddy_accepts_the_public_caddyfile_with_lets_encrypt(tmp_path: Path) -> None:
    text = _printed("caddyfile", "--domain", "bourre.example.com", "--email", "ops@example.com")
    assert "\ttls internal" not in text
    config = _adapt(text, tmp_path)
    issuers = [i for n in _walk(config) for i in n.get("issuers", [])]
    # Let's Encrypt first; with an e-mail Caddy keeps ZeroSSL (also ACME) as its fallback.
    assert issuers and issuers[0]["module"] == "acme"
    assert {i["module"] for i in issuers} <= {"acme", "zerossl"}
    assert {i.get("email") for i in issuers} == {"ops@example.com"}
    hosts = {h for n in _walk(config) for m in n.get("match", []) for h in m.get("host", [])}
    assert hosts == {"bourre.example.com"}
    assert _handlers(config, "reverse_proxy") and _handlers(config, "encode")


# -- systemd ----------------------------------------------------------------------------------


def _rendered_units(tmp_path: Path) -> Path:
    """The units rendered for a home whose app and venv are this checkout and this
    Python's virtualenv, so that every ExecStart names a real program."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "app").symlink_to(ROOT)
    (home / "venv").symlink_to(Path(sys.prefix))
    out = tmp_path / "units"
    out.mkdir()
    for name in UNITS:
        (out / name).write_text(_printed(name, env={"BOURRE_HOME_DIR": str(home)}))
    return out


def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    assert set(UNITS) == {
        "bourre-backup.service",
        "bourre-backup.timer",
        "bourre-check-books.service",
        "bourre-check-books.timer",
        "bourre-tab-reminders.service",
        "bourre-tab-reminders.timer",
        "bourre-web.service",
        "bourre-web.socket",
        "bourre-worker.service",
    }
    folder = _rendered_units(tmp_path)
    for name in UNITS:
        _unit((folder / name).read_text())  # parses as INI with unique keys
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed: the units were parsed as INI only")
    result = subprocess.run(
        [analyze, "verify", *(str(folder / n) for n in UNITS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # verify exits 0 after a misspelt key or value; it says so on stderr.
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_the_web_unit_restarts_cleanly_on_the_socket_systemd_holds() -> None:
    web = _unit(_printed("bourre-web.service"))
    service = web["Service"]
    assert service["KillMode"] == "mixed"
    assert service["Restart"] == "on-failure"
    assert service["Type"] == "notify"  # gunicorn tells systemd when it serves
    assert service["ExecStart"].split()[1:] == [
        "--config",
        "/srv/bourre/app/deploy/gunicorn.conf.py",
        "bourre_site.wsgi",
    ]
    assert "--bind" not in service["ExecStart"]  # the socket comes from systemd
    assert "bourre-web.socket" in web["Unit"]["Requires"]
    socket = _unit(_printed("bourre-web.socket"))["Socket"]
    caddyfile = _printed("caddyfile", "--lan", "bourre.local")
    assert socket["ListenStream"] == "127.0.0.1:8001"
    assert "reverse_proxy 127.0.0.1:8001" in caddyfile
    for name in ("bourre-web.service", "bourre-worker.service"):
        assert _unit(_printed(name))["Service"]["EnvironmentFile"] == "/etc/bourre/env"


def test_nightly_timers_back_up_with_a_retention_and_check_the_books() -> None:
    for timer in ("bourre-backup.timer", "bourre-check-books.timer", "bourre-tab-reminders.timer"):
        section = _unit(_printed(timer))["Timer"]
        assert section["OnCalendar"].startswith("*-*-* ")
        assert section["Persistent"] == "true"
    backup = _unit(_printed("bourre-backup.service", "--keep", "7"))["Service"]
    assert backup["ExecStart"].endswith("manage.py backup --dir /var/backups/bourre --keep 7")
    assert backup["ReadWritePaths"] == "/var/backups/bourre"
    books = _unit(_printed("bourre-check-books.service"))["Service"]
    assert books["ExecStart"].endswith("manage.py check_books --quiet")
    reminders = _unit(_printed("bourre-tab-reminders.service"))["Service"]
    assert reminders["ExecStart"].endswith("manage.py send_tab_reminders")
    # The nightly check reads the books after the nightly backup has copied them.
    backup_at = _unit(_printed("bourre-backup.timer"))["Timer"]["OnCalendar"]
    books_at = _unit(_printed("bourre-check-books.timer"))["Timer"]["OnCalendar"]
    assert backup_at < books_at


def test_the_nightly_check_books_can_leave_its_result_for_metrics(tmp_path: Path) -> None:
    """check_books writes BOURRE_BOOKS_CHECK_FILE as the bourre user; by default that is in
    the code's folder, root's and read-only (found in a Debian chroot run: "The result was
    not kept for /metrics: Permission denied"). The installed settings point it into a
    folder the install makes the user's and the unit lets it write."""
    check_file = Path(_installed_env("--lan", "bourre.local")["BOURRE_BOOKS_CHECK_FILE"])
    books = _unit(_printed("bourre-check-books.service"))["Service"]
    assert books["ProtectSystem"] == "strict"
    assert check_file.parent == Path(books["ReadWritePaths"])
    result = _install(
        "--dry-run", "--lan", "bourre.local", env={"BOURRE_ETC_DIR": str(tmp_path / "etc")}
    )
    assert f"+ install -d -o bourre -g bourre -m 0755 {check_file.parent}\n" in result.stdout


# -- the settings it writes ---------------------------------------------------------------------


def _installed_env(*args: str) -> dict[str, str]:
    lines = _printed("env", *args).splitlines()
    env = dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))
    env["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)  # what the install generates
    return env


def test_the_installed_settings_pass_check_deploy() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOURRE_"))}
    env = {**clean, **_installed_env("--domain", "bourre.example.com")}
    env.pop("DATABASE_URL")  # the check needs no database; PostgreSQL's role may not exist
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_installed_settings_trust_caddy_and_no_one_else(rf, settings) -> None:
    from games.ratelimit import client_ip

    env = _installed_env("--lan", "bourre.local")
    settings.TRUSTED_PROXIES = env["DJANGO_TRUSTED_PROXIES"].split(",")
    # Caddy on this machine dials gunicorn from loopback and appends the phone's address.
    via_caddy = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="192.168.1.23")
    assert client_ip(via_caddy) == "192.168.1.23"
    # Anyone else's X-Forwarded-For is not believed.
    direct = rf.get("/", REMOTE_ADDR="192.168.1.50", HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert client_ip(direct) == "192.168.1.50"
    assert env["DJANGO_ALLOWED_HOSTS"].split(",")[0] == "bourre.local"
    assert env["DJANGO_SECURE_PROXY_SSL_HEADER"] == "1"
