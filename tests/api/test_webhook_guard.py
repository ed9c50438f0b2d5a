"""Webhooks cannot be turned inward (issue #33, games.api.egress): inward URLs are refused
at registration and at every delivery, the socket connects to the address that was
checked, redirects are failures, and a failure is kept as a category, never as the
socket's text.

A fake resolver (`resolver`) answers host names as each test scripts; IP literals go to
the real one (the socket module resolves them too). Receivers are real local servers.
"""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from games.api import egress, outbox
from games.models import WebhookDelivery, WebhookEndpoint

from .conftest import FIRST_HAND, record

PUBLIC = "93.184.215.14"
_real_getaddrinfo = socket.getaddrinfo


class Resolver:
    """Answers names from `answers[name]`, one list per call (the last one repeats)."""

    def __init__(self) -> None:
        self.answers: dict[str, list[list[str]]] = {}
        self.asked: list[str] = []

    def __call__(self, host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in self.answers:
            try:
                egress.ipaddress.ip_address(name)
            except ValueError:
                raise socket.gaierror(socket.EAI_NONAME, "not found") from None
            return _real_getaddrinfo(host, port, *args, **kwargs)
        self.asked.append(name)
        script = self.answers[name]
        addresses = script.pop(0) if len(script) > 1 else script[0]
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (a, port or 0, 0, 0) if ":" in a else (a, port or 0),
            )
            for a in addresses
        ]


@pytest.fixture
def resolver(monkeypatch):
    fake = Resolver()
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


@pytest.fixture
def connections(monkeypatch):
    """Every address a socket was connected to, in order."""
    made: list[tuple] = []
    real = socket.create_connection

    def spy(address, *args, **kwargs):
        made.append(address)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", spy)
    return made


@pytest.fixture
def strict(settings):
    settings.WEBHOOK_ALLOW_HTTP = False
    settings.WEBHOOK_ALLOW_PRIVATE = False


@pytest.fixture
def local(settings):
    """The switches a local receiver needs: plain http, 127.0.0.1, a port of its own."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE = True


class Receiver:
    """A local HTTP server: answers POSTs with the scripted (status, headers), default 200;
    records every request, GETs included (a followed redirect would be one)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict]] = []
        self.script: list[tuple[int, dict]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                receiver.requests.append((self.command, self.path, dict(self.headers)))
                status, headers = receiver.script.pop(0) if receiver.script else (200, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_GET = _answer

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def _register(client, club, url):
    return client.post(
        f"/api/v1/clubs/{club.pk}/webhooks/", {"url": url}, content_type="application/json"
    )


def _code(response) -> str:
    return response.json()["errors"][0]["code"]


# --- registration ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://127.1/",  # what inet_aton reads as 127.0.0.1
        "https://2130706433/",
        "https://0x7f.0.0.1/",
        "https://[::ffff:a9fe:a9fe]/",  # 169.254.169.254, mapped, in hex
        "https://[::127.0.0.1]/",  # IPv4-compatible
        "https://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
        "https://[2002:7f00:1::1]/",  # 6to4 of 127.0.0.1
        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
        "https://[fe80::1]/",
        "https://[fc00::1]/",
        "https://[ff02::1]/",
        "https://224.0.0.1/",
        "https://240.0.0.1/",
        "https://255.255.255.255/",
        "https://0.0.0.1/",
        "https://172.16.0.1/",
        "https://192.168.1.1/",
        "https://instance-data/",
        "https://metadata/",
        "https://printer.local/",
        "https://db.internal/",
        "https://api.localhost/",
        "https://METADATA.GOOGLE.INTERNAL./",
    ],
)
def test_more_inward_forms_are_refused(strict, url):
    # Some of these never pass the API's URL field (no top-level domain); a delivery
    # checks the stored URL all the same, with the same rules.
    with pytest.raises(egress.UrlRefused) as refused:
        egress.check_url(url)
    assert refused.value.code == "address_not_allowed"


@pytest.mark.parametrize(
    "url",
    ["https://[::127.0.0.1]/", "https://[fe80::1]/", "https://172.16.0.1/", "https://0.0.0.1/"],
)
def test_the_api_refuses_them_with_a_code(api_alice, club, strict, url):
    response = _register(api_alice, club, url)
    assert response.status_code == 400, url
    assert _code(response) == "address_not_allowed"
    assert not WebhookEndpoint.objects.exists()


def test_a_name_resolving_to_loopback_is_refused(api_alice, club, strict, resolver):
    resolver.answers["hooks.example"] = [["127.0.0.1"]]
    response = _register(api_alice, club, "https://hooks.example/in")
    assert response.status_code == 400
    assert _code(response) == "address_not_allowed"
    assert response.json()["errors"][0]["message"] == (
        "This address is inside a private network, and a private network cannot receive "
        "webhooks. Use an address anyone on the internet can reach."
    )


def test_one_inward_address_among_public_ones_refuses_the_name(api_alice, club, strict, resolver):
    resolver.answers["mixed.example"] = [[PUBLIC, "2606:2800:220:1::1", "10.1.2.3"]]
    assert _code(_register(api_alice, club, "https://mixed.example/")) == "address_not_allowed"


def test_a_public_name_and_a_public_address_are_accepted(api_alice, club, strict, resolver):
    resolver.answers["hooks.example"] = [[PUBLIC, "2606:2800:220:1::1"]]
    assert _register(api_alice, club, "https://hooks.example/in").status_code == 201
    assert _register(api_alice, club, "https://hooks.example:443/b").status_code == 201
    assert _register(api_alice, club, f"https://{PUBLIC}/c").status_code == 201
    assert _register(api_alice, club, "https://[::ffff:8.8.8.8]/d").status_code == 201


def test_a_name_that_does_not_resolve_yet_is_accepted(api_alice, club, strict, resolver):
    # Every delivery checks it again ("host name not found" until it resolves).
    assert _register(api_alice, club, "https://not-yet.example/").status_code == 201


@pytest.mark.parametrize(
    "url", ["https://user:secret@hooks.example/", "https://user@hooks.example/"]
)
def test_user_info_is_refused(api_alice, club, strict, resolver, url):
    resolver.answers["hooks.example"] = [[PUBLIC]]
    response = _register(api_alice, club, url)
    assert response.status_code == 400
    assert _code(response) == "userinfo_not_allowed"


@pytest.mark.parametrize(
    "url", ["https://hooks.example:8443/", "https://hooks.example:22/", "https://hooks.example:80/"]
)
def test_another_port_than_443_is_refused(api_alice, club, strict, resolver, url):
    resolver.answers["hooks.example"] = [[PUBLIC]]
    response = _register(api_alice, club, url)
    assert response.status_code == 400
    assert _code(response) == "port_not_allowed"


def test_http_on_port_80_only_with_the_http_switch(api_alice, club, strict, resolver, settings):
    resolver.answers["hooks.example"] = [[PUBLIC]]
    assert _code(_register(api_alice, club, "http://hooks.example/")) == "https_required"
    settings.WEBHOOK_ALLOW_HTTP = True
    assert _register(api_alice, club, "http://hooks.example/").status_code == 201
    assert _code(_register(api_alice, club, "http://hooks.example:8080/")) == "port_not_allowed"


def test_the_lan_switch_allows_private_addresses_and_ports_but_never_metadata(
    api_alice, club, strict, settings
):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    assert _register(api_alice, club, "https://10.0.0.1:8443/").status_code == 201
    assert _register(api_alice, club, "https://printer.local/").status_code == 201
    for url in (
        "https://169.254.169.254/latest/meta-data/",
        "https://[fd00:ec2::254]/",
        "https://metadata.google.internal/",
        "https://0.0.0.0/",
        "https://[ff02::1]/",
    ):
        assert _code(_register(api_alice, club, url)) == "address_not_allowed", url


def test_the_refusal_speaks_the_owners_language(api_alice, club, strict):
    response = api_alice.post(
        f"/api/v1/clubs/{club.pk}/webhooks/",
        {"url": "https://10.0.0.1/"},
        content_type="application/json",
        headers={"Accept-Language": "es"},
    )
    message = response.json()["errors"][0]["message"]
    assert message and "private network" not in message


# --- delivery ------------------------------------------------------------------------------


def test_a_name_that_turned_inward_after_registration_is_not_connected(
    api_alice, club, game, bob, strict, resolver, connections
):
    resolver.answers["rebind.example"] = [[PUBLIC], ["127.0.0.1"]]
    assert _register(api_alice, club, "https://rebind.example/hook").status_code == 201
    record(game, FIRST_HAND, bob)
    assert outbox.deliver_due() == 1
    assert connections == []  # the refused address was never dialled
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert (delivery.last_error, delivery.last_status_code) == ("address", None)
    assert delivery.error_text() == "address not allowed"


def test_an_inward_url_stored_without_the_api_is_refused_at_delivery(
    club, game, bob, strict, connections
):
    WebhookEndpoint.objects.create(club=club, url="https://169.254.169.254/latest/meta-data/")
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    assert connections == []
    assert WebhookDelivery.objects.get().last_error == "address"


def test_the_socket_connects_to_the_address_that_was_checked(
    club, game, bob, local, resolver, connections, receiver
):
    # The first answer is the receiver; any later one is an address nobody listens on. A
    # client that resolved again to connect (check, then connect by name) would miss.
    resolver.answers["pinned.example"] = [["127.0.0.1"], ["127.0.0.2"]]
    WebhookEndpoint.objects.create(club=club, url=f"http://pinned.example:{receiver.port}/in?x=1")
    record(game, FIRST_HAND, bob)
    assert outbox.deliver_due() == 1
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.last_error) == ("delivered", "")
    assert resolver.asked == ["pinned.example"]  # resolved once
    assert connections == [("127.0.0.1", receiver.port)]
    ((method, path, headers),) = receiver.requests
    assert (method, path) == ("POST", "/in?x=1")
    assert headers["Host"] == f"pinned.example:{receiver.port}"  # the name, not the address


def test_a_redirect_is_a_failure_and_is_not_followed(club, game, bob, local, receiver):
    receiver.script = [(302, {"Location": f"http://127.0.0.1:{receiver.port}/elsewhere"})]
    WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{receiver.port}/hook")
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    assert [(m, p) for m, p, _ in receiver.requests] == [("POST", "/hook")]  # no GET after
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.delivered_at) == ("pending", None)
    assert (delivery.last_error, delivery.last_status_code) == ("redirect", 302)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_stored_error_is_a_category_never_the_sockets_text(
    api_alice, alice_client, club, game, bob, local, receiver
):
    port = _closed_port()
    refused = WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{port}/")
    tls = WebhookEndpoint.objects.create(club=club, url=f"https://127.0.0.1:{receiver.port}/")
    missing = WebhookEndpoint.objects.create(club=club, url="https://nowhere.invalid/")
    failing = WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{receiver.port}/")
    receiver.script = [(503, {})]
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    kept = {d.endpoint_id: d for d in WebhookDelivery.objects.all()}
    assert kept[refused.pk].last_error == "refused"
    assert kept[tls.pk].last_error == "tls"  # https to a server that speaks plain http
    assert kept[missing.pk].last_error == "dns"
    assert (kept[failing.pk].last_error, kept[failing.pk].last_status_code) == ("status", 503)
    # The API and the owner's page say it in words, never with the exception's text.
    said = {}
    for endpoint in (refused, tls, missing, failing):
        (row,) = api_alice.get(f"/api/v1/webhooks/{endpoint.pk}/deliveries/").json()["results"]
        said[endpoint.pk] = (row["last_error"], row["last_error_code"])
    assert said == {
        refused.pk: ("connection refused", "refused"),
        tls.pk: ("TLS or certificate failure", "tls"),
        missing.pk: ("host name not found", "dns"),
        failing.pk: ("HTTP status 503", "status"),
    }
    page = alice_client.get(f"/clubs/{club.pk}/webhooks/").content.decode()
    assert "connection refused" in page and "last answer 503" in page
    for text in ("Errno", "Error:", "WRONG_VERSION", "SSL", "gaierror"):
        assert text not in page


def test_no_answer_in_time_is_a_timeout(club, game, bob, local, monkeypatch):
    monkeypatch.setattr(outbox, "TIMEOUT", 0.2)
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        WebhookEndpoint.objects.create(
            club=club, url=f"http://127.0.0.1:{silent.getsockname()[1]}/"
        )
        record(game, FIRST_HAND, bob)
        outbox.deliver_due()
    assert WebhookDelivery.objects.get().last_error == "timeout"


def test_the_words_follow_the_readers_language(club, game, bob, local):
    from django.utils import translation

    WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{_closed_port()}/")
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    delivery = WebhookDelivery.objects.get()
    english = delivery.error_text()
    for code in ("es", "fi", "sq", "ko", "su"):
        with translation.override(code):
            assert delivery.error_text() not in ("", english), code


# --- the rules, one address at a time ------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "strict_answer", "lan_answer"),
    [
        ("8.8.8.8", True, True),
        ("2606:4700:4700::1111", True, True),
        ("::ffff:8.8.8.8", True, True),
        ("2002:808:808::1", True, True),  # 6to4 of a public address
        ("64:ff9b::808:808", True, True),  # NAT64 of a public address
        ("127.0.0.1", False, True),
        ("::1", False, True),
        ("10.0.0.1", False, True),
        ("100.64.0.1", False, True),
        ("fd12::1", False, True),
        ("169.254.1.1", False, True),
        ("fec0::1", False, True),  # deprecated site-local
        ("2002:a00:1::1", False, True),  # 6to4 of 10.0.0.1
        ("169.254.169.254", False, False),
        ("168.63.129.16", False, False),  # Azure's wire server: public, still refused
        ("::ffff:169.254.169.254", False, False),
        ("0.0.0.0", False, False),
        ("::", False, False),
        ("224.0.0.1", False, False),
        ("240.0.0.1", False, False),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False, False),
        ("192.0.0.8", False, False),  # IETF protocol assignments: "global" in Python 3.11
        ("192.88.99.1", False, False),  # the 6to4 relay anycast
    ],
)
def test_allowed(address, strict_answer, lan_answer):
    ip = egress.ipaddress.ip_address(address)
    assert egress.allowed(ip, allow_private=False) is strict_answer
    assert egress.allowed(ip, allow_private=True) is lan_answer


@pytest.fixture
def tls_receiver(tmp_path):
    """A local HTTPS receiver whose certificate names hooks.test (made by openssl), and the
    name each client asked for in its TLS handshake (SNI)."""
    import ssl
    import subprocess

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=hooks.test"]
        + ["-addext", "subjectAltName=DNS:hooks.test"],
        check=True,
        capture_output=True,
    )
    receiver = Receiver()
    names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    receiver.server.socket = context.wrap_socket(receiver.server.socket, server_side=True)
    yield receiver, cert, names
    receiver.close()


def test_tls_names_the_host_while_the_socket_goes_to_the_checked_address(
    club, game, bob, local, resolver, connections, tls_receiver, monkeypatch
):
    import ssl

    receiver, cert, names = tls_receiver
    monkeypatch.setattr(egress, "tls_context", lambda: ssl.create_default_context(cafile=cert))
    resolver.answers["hooks.test"] = [["127.0.0.1"], ["127.0.0.2"]]
    resolver.answers["other.test"] = [["127.0.0.1"]]
    good = WebhookEndpoint.objects.create(club=club, url=f"https://hooks.test:{receiver.port}/")
    wrong = WebhookEndpoint.objects.create(club=club, url=f"https://other.test:{receiver.port}/")
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    kept = {d.endpoint_id: d for d in WebhookDelivery.objects.all()}
    assert (kept[good.pk].status, kept[good.pk].last_error) == ("delivered", "")
    # The same address, another name: the certificate does not fit it.
    assert (kept[wrong.pk].status, kept[wrong.pk].last_error) == ("pending", "tls")
    assert names[:2] == ["hooks.test", "other.test"]
    assert connections == [("127.0.0.1", receiver.port)] * 2
    assert receiver.requests[0][2]["Host"] == f"hooks.test:{receiver.port}"


@pytest.mark.parametrize("path", ["/caf\u00e9?q=\u00f1", "/a\x01b"])
def test_an_endpoint_http_client_cannot_address_fails_alone(club, game, bob, local, receiver, path):
    """A path with non-ASCII or control characters is sent percent-encoded; whatever one
    endpoint's request cannot be, it fails as that delivery's own, and the other endpoints
    of the batch are delivered and stay delivered (it once rolled the whole batch back)."""
    WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{receiver.port}/ok")
    WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{receiver.port}{path}")
    record(game, FIRST_HAND, bob)
    outbox.deliver_due()
    states = sorted(WebhookDelivery.objects.values_list("status", flat=True))
    assert states == ["delivered", "delivered"], states
    assert sorted(r[1] for r in receiver.requests) == sorted(
        ["/ok", egress.target(f"http://127.0.0.1:{receiver.port}{path}").path]
    )


def test_a_receiver_dribbling_its_answer_meets_the_deadline(club, game, bob, local, monkeypatch):
    """Issue #33: each read of a slow receiver comes within the socket's timeout (a byte
    every 0.2 s, its head never ending), so only an overall deadline ends the delivery:
    recorded as "timeout", well before the per-read timeout could ever fire."""
    monkeypatch.setattr(egress, "DEADLINE", 1.0)
    stop = threading.Event()
    with socket.socket() as slow:
        slow.bind(("127.0.0.1", 0))
        slow.listen()

        def dribble() -> None:
            conn, _ = slow.accept()
            with conn:
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                while not stop.wait(0.2):
                    try:
                        conn.sendall(b"X")
                    except OSError:
                        return

        threading.Thread(target=dribble, daemon=True).start()
        WebhookEndpoint.objects.create(club=club, url=f"http://127.0.0.1:{slow.getsockname()[1]}/")
        record(game, FIRST_HAND, bob)
        started = time.monotonic()
        outbox.deliver_due()
        took = time.monotonic() - started
        stop.set()
    assert WebhookDelivery.objects.get().last_error == "timeout"
    assert 1.0 <= took < outbox.TIMEOUT
