"""SESSION_ENGINE with a shared cache (Redis): Django's ``cached_db``, its database read
by ``bourre_site.sessions``' plain statement."""

from django.contrib.sessions.backends import cached_db

from bourre_site import sessions


class SessionStore(sessions.SessionStore, cached_db.SessionStore):
    """cached_db's ``load`` (cache first), ``sessions``' read of the row. Named as
    Django's: the name is part of the session data's signature."""
