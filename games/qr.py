"""QR codes of links that phones scan off another phone's screen (seat links, share
links): inline SVG, dark on white whatever the theme, so every camera reads it."""

import segno


def qr_svg(url: str) -> str:
    return segno.make(url, error="m").svg_inline(scale=4, dark="#000", light="#fff", border=2)
