"""Settings for the Bourré site: one module, every deployment choice read from the environment.

Development (`make dev`) sets DJANGO_DEBUG=1. `make run` sets BOURRE_LAN=1 (the host's
machine serving the phones on its Wi-Fi; see bourre_site/lan.py): DEBUG off, LAN hosts
accepted, cookies over plain http, and a generated DJANGO_SECRET_KEY. Production sets
DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS, DATABASE_URL (PostgreSQL), DJANGO_SECURE_SSL_REDIRECT=1 and
DJANGO_STATIC_MANIFEST=1 (after `collectstatic`); then `manage.py check --deploy` is clean.

Everywhere: responses gzipped for clients that accept it (DJANGO_COMPRESS=0 leaves it to a
proxy), an X-Request-ID on every response and JSON log line (bourre_site/requestid.py),
request counts for /metrics (bourre_site/metrics.py); logs are JSON lines outside DEBUG and
`make run` (DJANGO_LOG_FORMAT).
"""

import os
from pathlib import Path

import dj_database_url
from whitenoise.compress import Compressor  # type: ignore[import-untyped]

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# `make run` (bourre_site/lan.py) serves the phones on the host's Wi-Fi: never DEBUG
# there (other devices would see debug pages), hosts checked by address range instead of
# a list (LanHostMiddleware), cookies sent over plain http.
LAN_MODE = env_bool("BOURRE_LAN", False)
DEBUG = env_bool("DJANGO_DEBUG", False) and not LAN_MODE

# Outside DEBUG the key must come from DJANGO_SECRET_KEY: serving (wsgi, asgi, runserver)
# and every management command's system checks refuse to start without it
# (bourre_site/startup.py). Only tools that never serve (pytest, mypy) get this far without
# one, and they sign nothing a stranger could reuse.
_DEV_SECRET = "django-insecure-development-only-key-set-DJANGO_SECRET_KEY-in-production"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _DEV_SECRET
SECRET_KEY_MISSING = not DEBUG and not os.environ.get("DJANGO_SECRET_KEY")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
# In LAN mode the listed hosts are still accepted, plus the machine's own addresses,
# private-range addresses and .local names: bourre_site.lan.LanHostMiddleware checks them
# (ALLOWED_HOSTS has no address ranges), early in MIDDLEWARE, before anything reads the host.
LAN_LISTED_HOSTS = ALLOWED_HOSTS
# The first Wi-Fi address `make run` printed: the links handed to phones use it when the
# host's own browser is on 127.0.0.1 (games/qr.py).
PHONE_BASE_URL = os.environ.get("BOURRE_PHONE_URL", "")
# The address e-mails link to (the tab reminders, issue #34): "https://bourre.example.org".
SITE_URL = os.environ.get("BOURRE_SITE_URL", "")
if LAN_MODE:
    ALLOWED_HOSTS = ["*"]
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# A refused form in words and in the reader's language, not Django's debugging page.
CSRF_FAILURE_VIEW = "games.error_pages.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "games",
    "ledger",
]

MIDDLEWARE = [
    # First, so that every answer (/healthz, a refused host, a 503) carries an
    # X-Request-ID and is counted for /metrics: bourre_site/requestid.py, metrics.py.
    "bourre_site.requestid.RequestIdMiddleware",
    "bourre_site.metrics.MetricsMiddleware",
    # /healthz answers before host checks and redirects (bourre_site/middleware.py).
    "bourre_site.middleware.HealthCheckMiddleware",
    # CORS for the public read-only API only (CORS_URLS_REGEX below): before anything
    # that answers on its own (a 503, a redirect), so a browser can read those too.
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files answer here, before SecurityHeadersMiddleware: that one marks every
    # response to a signed-in phone "private, no-store", which made the phones fetch the
    # styles and scripts again on every page instead of keeping them for a year.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # CSP, Permissions-Policy, Cache-Control of private pages, 503 while the database is away.
    "bourre_site.middleware.SecurityHeadersMiddleware",
    # Pages, htmx fragments and JSON gzipped for clients that accept it (a phone on
    # `make run` has no proxy to do it). After WhiteNoise, which serves static files
    # compressed ahead of time; before everything that writes a body. Django's
    # GZipMiddleware rather than a Brotli/zstd package: it is Django's own, it compresses
    # a streamed export chunk by chunk, and it pads each response with random bytes
    # against BREACH (Heal The BREACH), on top of the CSRF token Django masks anew in
    # every response; django-compression-middleware has neither the padding nor a
    # release since 2023. DJANGO_COMPRESS=0 leaves it to a proxy (Caddy's zstd).
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # A scoreboard poll answered 304 in one statement, before anything else reads the
    # login session (games/polling.py).
    "games.polling.BoardPollMiddleware",
    # After sessions (it reads the signed-in player's saved language from the session),
    # before CommonMiddleware (Django's order for LocaleMiddleware); games/language.py.
    "games.language.PreferredLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "games.timezones.ResetTimeZoneMiddleware",
]
if not env_bool("DJANGO_COMPRESS", True):
    MIDDLEWARE.remove("django.middleware.gzip.GZipMiddleware")
if LAN_MODE:
    # Right after /healthz (which answers whatever the host), before anything reads it.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("bourre_site.middleware.HealthCheckMiddleware") + 1,
        "bourre_site.lan.LanHostMiddleware",
    )

ROOT_URLCONF = "bourre_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "bourre_site.wsgi.application"

# Persistent connections (a new one costs more than a whole poll). Django's health check
# would send SELECT 1 before the first query of every request; bourre_site/dbhealth.py
# looks at the socket instead (no round trip) and runs the real check only when the
# server has spoken, e.g. after a PostgreSQL restart. Kept: 12.4 % and 13.7 % of a 304
# poll (bench/devices.py, issue #31).
DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=False,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several phones write to one table: wait for the write lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )

# Behind PgBouncer in transaction pooling: no server-side cursors (they outlive a
# transaction) and no persistent connections of our own (the pooler keeps them).
if env_bool("DJANGO_PGBOUNCER", False):
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"]["CONN_MAX_AGE"] = 0

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES: dict[str, dict[str, object]] = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        },
        # The login, sign-up and reset counters (games/ratelimit.py). Give Redis
        # `maxmemory-policy noeviction` (or room enough): an evicted counter is a fresh
        # allowance.
        "ratelimit": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "rl",
        },
    }
    # Sessions read from the shared cache and written through to the database (Django's
    # cached_db): a request of a signed-in phone costs one query less. Only with a shared
    # cache: a per-process cache would keep a logged-out session alive in the other app
    # processes.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    # The login, sign-up and reset counters live in the database (games/counters.py):
    # seen by every app process, never culled, so neither a second worker nor a spray of
    # usernames hands out a fresh allowance. The API's per-window counts stay in the
    # process's memory cache, one per worker: `make run`'s two workers each count a
    # client's API calls apart (Redis shares them).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        },
        "ratelimit": {"BACKEND": "games.counters.CounterCache", "TIMEOUT": None},
    }
    # Django's database sessions. (Issue #31 removed the own engine that read the row by
    # a plain statement: 5 % of a record POST, bench/devices.py.)
    SESSION_ENGINE = "django.contrib.sessions.backends.db"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Login throttle (games/ratelimit.py): failed logins tried at once per (client address,
# username) and per client address (IPv6: per /64), after which each further attempt waits
# 1 s, 2 s, 4 s... up to LOGIN_RATE_WINDOW seconds (also how long failures are remembered
# after the last one). A browser's device cookie gets the pair's allowance of its own.
LOGIN_RATE_LIMIT = int(os.environ.get("DJANGO_LOGIN_RATE_LIMIT", "5"))
LOGIN_IP_RATE_LIMIT = int(os.environ.get("DJANGO_LOGIN_IP_RATE_LIMIT", "30"))
LOGIN_RATE_WINDOW = int(os.environ.get("DJANGO_LOGIN_RATE_WINDOW", "300"))
# Per username across all addresses (OWASP ASVS 2.2.1, at most 100 failures an hour): the
# free failures, the longest wait between later ones, how long the count is remembered.
# 10 free + waits 1 s ... 32 s + one a minute: at most 77 evaluated in any hour.
LOGIN_ACCOUNT_RATE_LIMIT = int(os.environ.get("DJANGO_LOGIN_ACCOUNT_RATE_LIMIT", "10"))
LOGIN_ACCOUNT_MAX_WAIT = int(os.environ.get("DJANGO_LOGIN_ACCOUNT_MAX_WAIT", "60"))
LOGIN_ACCOUNT_RATE_WINDOW = int(os.environ.get("DJANGO_LOGIN_ACCOUNT_RATE_WINDOW", "3600"))
# Accounts created per client address (IPv6: per /64) in SIGNUP_RATE_WINDOW seconds.
SIGNUP_RATE_LIMIT = int(os.environ.get("DJANGO_SIGNUP_RATE_LIMIT", "10"))
SIGNUP_RATE_WINDOW = int(os.environ.get("DJANGO_SIGNUP_RATE_WINDOW", "3600"))

# Proxies whose X-Forwarded-For is believed (comma-separated networks, e.g.
# "127.0.0.1/32,10.0.0.0/8"): the client address every limiter counts is the first hop,
# read right to left, that is not one of them. Empty: REMOTE_ADDR, the header ignored.
TRUSTED_PROXIES = env_list("DJANGO_TRUSTED_PROXIES")

# The players' languages (issue 19). The language of a request is the signed-in user's
# saved choice, else the language cookie (set by the menu's switcher), else Accept-Language;
# anything else is English (bourre_site/i18n.py). Sundanese has no entry in Django's
# LANG_INFO: bourre_site/i18n.py adds it when the site starts. Catalogues live in locale/
# as .po files; the .mo files are compiled from them at startup (bourre_site/i18n.py), so
# neither GNU gettext nor committed binaries are needed.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("es", "Spanish"),
    ("fi", "Finnish"),
    ("sq", "Albanian"),
    ("ko", "Korean"),
    ("su", "Sundanese"),
]
# locale/ first: makemessages writes there. bourre_site/locale_django holds the Sundanese for
# the words Django itself renders (month names, "3 days"), which Django does not ship.
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "bourre_site" / "locale_django"]
# Sundanese date and number formats (Django has none): bourre_site/formats/su/formats.py.
FORMAT_MODULE_PATH = ["bourre_site.formats"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "America/Chicago")
USE_I18N = True
# Dates and numbers in templates follow the active language's formats (Django 5 always
# localizes; USE_L10N is gone). Money is formatted by games/templatetags/bourre.py.
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic writes (and Caddy or WhiteNoise serve from): staticfiles/ in the
# project unless DJANGO_STATIC_ROOT names another folder (a build step elsewhere, tests).
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if env_bool("DJANGO_STATIC_MANIFEST", False)
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Without collectstatic (development, tests) WhiteNoise serves straight from the finders.
WHITENOISE_USE_FINDERS = not env_bool("DJANGO_STATIC_MANIFEST", False)
# Source maps (the API docs' bundles carry 7 MB of them) are for a developer's tools, not
# for phones: not compressed ahead, which takes most of collectstatic's time otherwise.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]

# Password-reset e-mails: printed on the console unless an SMTP host is given.
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = 10
EMAIL_BACKEND = os.environ.get(
    "DJANGO_EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "bourre@localhost")

# Security: secure by default outside DEBUG; the redirect is opt-in because TLS usually
# ends at a proxy (set DJANGO_SECURE_PROXY_SSL_HEADER=1 behind one).
# LAN mode serves plain http on the home network: a Secure cookie would never come back,
# so nobody could log in. Production (TLS, no BOURRE_LAN) keeps them Secure.
SESSION_COOKIE_SECURE = env_bool("DJANGO_SESSION_COOKIE_SECURE", not DEBUG and not LAN_MODE)
CSRF_COOKIE_SECURE = env_bool("DJANGO_CSRF_COOKIE_SECURE", not DEBUG and not LAN_MODE)
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(
    os.environ.get("DJANGO_HSTS_SECONDS", "0" if DEBUG or LAN_MODE else "31536000")
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "EXCEPTION_HANDLER": "games.api.errors.problem_exception_handler",
    # Requests per fixed window (games/api/base.py ApiRateThrottle): per token (or signed-in
    # user), per client address for anonymous calls, per address for the public verifier.
    "DEFAULT_THROTTLE_RATES": {
        "verify": os.environ.get("BOURRE_VERIFY_RATE", "120/min"),
        "token": os.environ.get("BOURRE_API_TOKEN_RATE", "600/min"),
        "anon": os.environ.get("BOURRE_API_ANON_RATE", "60/min"),
        # The public read-only data (games.api.public), per client address: a league
        # website's visitors each poll a clock or standings for themselves.
        "public": os.environ.get("BOURRE_API_PUBLIC_RATE", "240/min"),
    },
}

# CORS (django-cors-headers) on the public read-only API only: any origin may GET it
# (a league website's own pages), never with cookies or credentials. Every other path
# sends no Access-Control-* header, so a browser on another origin cannot read it.
CORS_URLS_REGEX = r"^/api/v1/public/"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_ALLOW_HEADERS = ["accept", "accept-language", "if-none-match"]
CORS_EXPOSE_HEADERS = [
    "ETag",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Retry-After",
]
CORS_PREFLIGHT_MAX_AGE = 86400

# Webhook endpoints must be https:// unless this is on (local receivers in development).
WEBHOOK_ALLOW_HTTP = env_bool("BOURRE_WEBHOOK_ALLOW_HTTP", DEBUG)
# Webhooks never reach loopback, private, link-local, CGNAT or unique-local addresses, nor
# other ports than 443 (80 for http), unless this is on: a LAN install whose receivers are
# on the LAN, or a test's local receiver (with WEBHOOK_ALLOW_HTTP). Metadata addresses
# and names stay refused (games.api.egress).
WEBHOOK_ALLOW_PRIVATE = env_bool("BOURRE_WEBHOOK_ALLOW_PRIVATE", False)

SPECTACULAR_SETTINGS = {
    "TITLE": "Bourré bookkeeping API",
    "DESCRIPTION": (
        "Sessions, hands, ledger and settlement of Bourré games, and the public hand "
        "verifier.\n\n"
        "**Idempotency**: every write accepts an `Idempotency-Key` header (1–80 printable "
        "ASCII characters). A 2xx response is kept with the key for at least 24 hours "
        "(per user and token); the same request again gets the same response with "
        "`Idempotent-Replayed: true`; the same key with a different method, path or body "
        "is 422 `idempotency_key_reused`; while the first is running, 409 "
        "`idempotency_key_in_use` with `Retry-After`: retry then, and you get the first "
        "one's response (or, if it failed, your request is done). The key is stored with the "
        "change in one transaction, so a request that died mid-write leaves the key free: "
        "its retry does the change once. Errors are not kept.\n\n"
        "**Errors** are `application/problem+json` (RFC 9457) with `errors[].code`. "
        "Request bodies are limited to 1 MiB (413 `body_too_large`). Another club's "
        "object is the same 404 as a missing one. Bad `cursor`/`page_size` are 400.\n\n"
        "**Rate limits**: requests are counted per token (or signed-in browser) and per "
        "client address for anonymous calls, in fixed windows; every response (the "
        "schema itself and the 404 of a path no operation has included) carries "
        "`RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds), and "
        "past the limit the answer is 429 `throttled` with `Retry-After`.\n\n"
        "**Times** are UTC (`…Z`). **Money** is in integer minor units."
        # games.api.guide.add_guide adds what a newcomer reads first (account, token)
        # after the first paragraph, and public data, webhooks and tournaments at the end.
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Path ids are integers, like the ids in bodies.
    "PATH_CONVERTER_OVERRIDES": {"id": int},
    # One unambiguous name per enum (not KindEnum/StatusEnum guessed from field names).
    "ENUM_NAME_OVERRIDES": {
        "SessionStatusEnum": "games.models.session.GameSession.Status",
        "SessionModeEnum": "games.models.session.GameSession.Mode",
        "LeftoverPolicyEnum": "games.models.session.GameSession.LeftoverPolicy",
        "HandStatusEnum": "games.models.session.Hand.Status",
        "HandKindEnum": "games.models.session.Hand.Kind",
        "RoleEnum": "games.models.club.Role",
        "PostingKindEnum": "ledger.models.Posting.Kind",
        "AccountKindEnum": "ledger.models.Account.Kind",
        "WebhookDeliveryStatusEnum": "games.models.api.WebhookDelivery.Status",
        "WebhookEventTypeEnum": "games.api.outbox.EVENT_TYPES",
        "TokenStatusEnum": "games.api.tokens.TOKEN_STATUSES",
        "TokenScopeEnum": "games.models.tokens.ApiToken.Scope",
        "TournamentStatusEnum": "games.models.tournament.Tournament.Status",
        "EntryStatusEnum": "games.models.tournament.Entry.Status",
        "RoundStatusEnum": "games.models.tournament.Round.Status",
        "TableStatusEnum": "games.models.tournament.TournamentTable.Status",
        # A deal's kind, asked for (DealInput) and answered (DealOutput, issue 36).
        "DealKindEnum": "games.engine.tournament_payouts.DEAL_KINDS",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.add_components",
        "games.api.guide.add_guide",
    ],
}

# Logs: one JSON object per line (bourre_site/jsonlog.py) for collectors, with the request
# id of the request that wrote it (bourre_site/requestid.py), outside DEBUG and `make run`;
# plain text where a person reads the terminal. DJANGO_LOG_FORMAT=json|text decides.
LOG_FORMAT = os.environ.get("DJANGO_LOG_FORMAT") or ("text" if DEBUG or LAN_MODE else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "bourre_site.requestid.RequestIdFilter"}},
    "formatters": {"json": {"()": "bourre_site.jsonlog.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            **({"formatter": "json"} if LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}

# Where `manage.py check_books` leaves its last result for /metrics (bourre_site/books_check.py).
BOOKS_CHECK_FILE = Path(
    os.environ.get("BOURRE_BOOKS_CHECK_FILE") or BASE_DIR / "var" / "check_books.json"
)
