"""/favicon.ico, which a browser asks for when a page names no icon, is the app's icon
(it was a 404 on the wall screen and the print view)."""

from django.contrib.staticfiles import finders
from django.templatetags.static import static


def test_favicon_ico_redirects_to_the_icon(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == static("img/favicon.svg")
    assert finders.find("img/favicon.svg")
