"""Draw the app's icons (static/img/icon-*.png) with the Chromium the browser tests use.

A developer's tool, run once when the icon changes; the PNGs are committed as source
assets, so nothing here runs in the app. The drawing is the favicon's: a white spade on
the table green. The maskable icon keeps the spade inside the middle 80 % (the safe zone
a launcher may crop to a circle).

Run: .venv/bin/python bench/make_icons.py
"""

from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent.parent / "static" / "img"
GREEN = "#0f5132"


def svg(size: int, maskable: bool) -> str:
    radius = 0 if maskable else size * 0.19
    font = size * (0.55 if maskable else 0.72)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}"><rect width="{size}" height="{size}" rx="{radius}" '
        f'fill="{GREEN}"/><text x="{size / 2}" y="{size * (0.7 if maskable else 0.76)}" '
        f'font-size="{font}" font-family="DejaVu Sans, sans-serif" text-anchor="middle" '
        f'fill="#fff">♠</text></svg>'
    )


def main() -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, size, maskable in (
            ("icon-192.png", 192, False),
            ("icon-512.png", 512, False),
            ("icon-maskable-512.png", 512, True),
        ):
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(f"<body style='margin:0;background:transparent'>{svg(size, maskable)}")
            page.screenshot(path=str(OUT / name), omit_background=True)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
