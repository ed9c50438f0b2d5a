"""A club's seasons (issue #35): date ranges, a points formula for tournaments, the
season standings (page, CSV, API) and their public link. ``points`` is the formula (pure),
``standings`` reads the season's tournaments and home sessions, ``service`` writes the
season rows (never money), ``views`` the pages."""
