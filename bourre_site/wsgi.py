import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bourre_site.settings")
application = get_wsgi_application()

from bourre_site.startup import require_secret_key  # noqa: E402  (needs the settings)

require_secret_key()
