import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bourre_site.settings")
application = get_asgi_application()

from bourre_site.startup import require_secret_key  # noqa: E402  (needs the settings)

require_secret_key()
