"""The slides as an audience sees them: every slide of every deck measured in a browser.

Usage (a browser is needed, so the tests do not run this)::

    # once: Playwright in an environment of its own, a Chromium, reveal.js 4 and MathJax 2
    python3 -m venv ../browser-venv && ../browser-venv/bin/pip install playwright
    sudo apt-get install chromium          # or: ../browser-venv/bin/playwright install chromium
    npm pack reveal.js@4 && tar xzf reveal.js-4.*.tgz && mv package ../reveal.js
    npm pack mathjax@2 && tar xzf mathjax-2.*.tgz && mv package ../mathjax

    ../browser-venv/bin/python benchmarks/measure_slides.py --reveal ../reveal.js \\
        --mathjax ../mathjax [--chromium /usr/bin/chromium] [--python .venv/bin/python] \\
        [--notebooks notebooks] [--only 07] [--tallest 20] [--json slides.json] [--keep DIR]

It builds the decks with ``python -m elmo_tutorial.course slides DIR --reveal-prefix
reveal.js`` (``--python``: the course's interpreter, by default ``.venv/bin/python``), puts
reveal.js and MathJax beside them, serves the folder on 127.0.0.1 and opens each deck in headless
Chromium at 1280×720. For every slide (``Reveal.getSlides()``, shown with ``Reveal.slide(h,
v)`` once MathJax has typeset it) it takes the slide's full height (``scrollHeight``; hidden
fragments take their room) and, for every block of printed output and of code, whether its
longest line is wider than the block (cut, or scrolled sideways). On the tallest slide of each
deck it presses Space and records whether the slide scrolled (a keyboard user is not stuck) or
the deck moved on.

Per deck it prints: slides; slides taller than 720 px (they need scrolling) and taller than
1080 px (more than half a screen of scrolling); the tallest slide (px, and its section); whether
the title slide fits; outputs and code wider than their block (and the smallest part of a line
shown, %); what Space does on the tallest slide. ``--tallest N`` lists the N tallest slides of
all decks; ``--json`` writes every slide's numbers.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 720

# Runs in the page: waits for reveal.js and MathJax, then lists the slides with their indices.
_SLIDES_JS = """async () => {
    for (let i = 0; i < 600 && !(window.Reveal && Reveal.isReady()); i++)
        await new Promise(r => setTimeout(r, 50));
    if (window.MathJax && MathJax.Hub) await new Promise(r => MathJax.Hub.Queue(r));
    let heading = "";
    return Reveal.getSlides().map(slide => {
        const h = slide.querySelector("h1, h2, h3");
        if (h) heading = h.textContent.replace(/\u00b6/g, "").replace(/\\s+/g, " ").trim();
        const i = Reveal.getIndices(slide);
        return {h: i.h, v: i.v || 0, heading: heading};
    });
}"""

# Runs in the page: shows slide (h, v), lets MathJax re-render it, and measures it.
_MEASURE_JS = """async ([h, v]) => {
    Reveal.slide(h, v);
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    if (window.MathJax && MathJax.Hub) await new Promise(r => MathJax.Hub.Queue(r));
    await Promise.all([...Reveal.getCurrentSlide().querySelectorAll("img")].map(img =>
        img.complete ? null : new Promise(r => { img.onload = img.onerror = r; })));
    const slide = Reveal.getCurrentSlide();
    const wide = kind => [...slide.querySelectorAll(kind)]
        .filter(pre => pre.offsetParent !== null && pre.scrollWidth > pre.clientWidth + 1)
        .map(pre => ({width: pre.scrollWidth, shown: pre.clientWidth}));
    return {
        height: slide.scrollHeight,
        client: slide.clientHeight,
        outputs: wide(".jp-OutputArea-output pre"),
        code: wide(".jp-InputArea pre, .highlight pre"),
        cells: [...slide.querySelectorAll(".jp-Cell")].map(cell => ({
            id: cell.id.replace("cell-id=", ""), top: cell.offsetTop,
            height: cell.offsetHeight})),
    };
}"""

def build(python: str, notebooks: Path, out: Path, only: str | None) -> list[Path]:
    """The decks of ``notebooks`` (those whose name starts with ``only``) written into ``out``."""
    source = notebooks
    if only:
        source = out.parent / "notebooks"
        source.mkdir()
        for path in notebooks.glob(f"{only}*.ipynb"):
            shutil.copy(path, source / path.name)
    subprocess.run([python, "-m", "elmo_tutorial.course", "slides", str(out),
                    "--notebooks", str(source), "--reveal-prefix", "reveal.js"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return sorted(out.glob("*.slides.html"))


def serve(folder: Path) -> tuple[http.server.HTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def measure_deck(page, url: str) -> dict:
    page.goto(url)
    slides = page.evaluate(_SLIDES_JS)
    for slide in slides:
        slide.update(page.evaluate(_MEASURE_JS, [slide["h"], slide["v"]]))
    tallest = max(slides, key=lambda s: s["height"])
    space = "no slide scrolls"
    if tallest["height"] > tallest["client"] + 1:
        page.evaluate("([h, v]) => { Reveal.slide(h, v); Reveal.getCurrentSlide().scrollTop = 0 }",
                      [tallest["h"], tallest["v"]])
        page.wait_for_timeout(1000)
        page.keyboard.press("Space")
        page.wait_for_timeout(1000)
        after = page.evaluate("() => [Reveal.getIndices(), Reveal.getCurrentSlide().scrollTop]")
        moved = (after[0]["h"], after[0].get("v") or 0) != (tallest["h"], tallest["v"])
        space = ("moves on (stuck)" if moved else
                 f"scrolls {after[1]:.0f} px" if after[1] > 0 else "shows a fragment")
    return {"slides": slides, "space": space}


def summary(name: str, result: dict) -> dict:
    slides = result["slides"]
    tallest = max(slides, key=lambda s: s["height"])
    outputs = [w for s in slides for w in s["outputs"]]
    code = [w for s in slides for w in s["code"]]

    def cut(blocks: list) -> str:
        if not blocks:
            return "0"
        shown = min(b["shown"] / b["width"] for b in blocks)
        return f"{len(blocks)} ({shown:.0%})"

    return {
        "deck": name[:2],
        "slides": len(slides),
        "> 720 px": sum(s["height"] > HEIGHT for s in slides),
        "> 1080 px": sum(s["height"] > HEIGHT * 1.5 for s in slides),
        "tallest": f"{tallest['height']} ({_where(tallest)})",
        "title fits": "yes" if slides[0]["height"] <= HEIGHT else f"no ({slides[0]['height']})",
        "outputs cut": cut(outputs),
        "code cut": cut(code),
        "Space on the tallest": result["space"],
    }


def _where(slide: dict) -> str:
    heading = re.sub(r"^(\d+(\.\d+)*)\.\s.*", r"§\1", slide["heading"])
    if slide["h"] == 0:
        heading = "title"
    return f"{heading[:28]} {slide['h']}/{slide['v']}"


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |",
             "|" + "|".join("---:" if k in ("slides", "> 720 px", "> 1080 px") else "---"
                            for k in keys) + "|"]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reveal", type=Path, required=True, help="an unpacked reveal.js 4")
    parser.add_argument("--mathjax", type=Path, required=True, help="an unpacked MathJax 2")
    parser.add_argument("--chromium", default=shutil.which("chromium") or
                        shutil.which("chromium-browser"),
                        help="the browser (default: chromium on the PATH, else Playwright's)")
    venv = ROOT / ".venv" / "bin" / "python"
    parser.add_argument("--python", default=str(venv) if venv.exists() else sys.executable,
                        help="the course's Python, which builds the decks (default: %(default)s)")
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--only", help="only the notebooks whose name starts with this")
    parser.add_argument("--tallest", type=int, default=10, help="list the N tallest slides")
    parser.add_argument("--json", type=Path, help="write every slide's numbers here")
    parser.add_argument("--keep", type=Path, help="keep the built decks in this new folder")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "slides"
        decks = build(args.python, args.notebooks.resolve(), out, args.only)
        for name, package in (("reveal.js", args.reveal), ("mathjax", args.mathjax)):
            os.symlink(package.resolve(), out / name)
        server, base = serve(out)
        results = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium)
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            for path in decks:
                results[path.name] = measure_deck(page, f"{base}/{path.name}")
                print(f"measured {path.name}", file=sys.stderr)
            version = browser.version
            browser.close()
        server.shutdown()
        if args.keep:
            shutil.copytree(out, args.keep, symlinks=True)

    rows = [summary(name, result) for name, result in results.items()]
    every = [dict(s, deck=name[:2]) for name, r in results.items() for s in r["slides"]]
    total = len(every)
    tall = sum(s["height"] > HEIGHT for s in every)
    print(f"Chromium {version}, viewport {WIDTH}×{HEIGHT}\n")
    print(table(rows))
    print(f"\nAll decks: {total} slides, {tall} taller than {HEIGHT} px ({tall / total:.1%}), "
          f"{sum(s['height'] > HEIGHT * 1.5 for s in every)} taller than {HEIGHT * 3 // 2} px, "
          f"{sum(r['title fits'] != 'yes' for r in rows)} of {len(rows)} title slides cut, "
          f"{sum(len(s['outputs']) for s in every)} outputs and "
          f"{sum(len(s['code']) for s in every)} code blocks wider than the slide.")
    if args.tallest:
        print(f"\nThe {args.tallest} tallest slides:")
        for s in sorted(every, key=lambda s: -s["height"])[:args.tallest]:
            print(f"  {s['height']:5d} px  {s['deck']} {_where(s)}  {s['heading'][:60]}")
    if args.json:
        args.json.write_text(json.dumps({"chromium": version, "decks": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
