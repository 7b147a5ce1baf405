"""`make html`: one page per notebook whose formulas load MathJax from beside the pages."""

import shutil

from elmo_tutorial.course.material import LOCAL_MATHJAX, NOTEBOOKS, main


def _one_notebook(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(NOTEBOOKS / "01_layer_norm.ipynb", folder)
    return folder


def test_pages_load_mathjax_from_beside_them_not_from_the_web(tmp_path, capsys):
    out = tmp_path / "html"
    assert main(["html", str(out), "--notebooks", str(_one_notebook(tmp_path))]) == 0
    page = (out / "01_layer_norm.html").read_text(encoding="utf-8")
    assert f'src="{LOCAL_MATHJAX}"' in page
    assert "ajax/libs/mathjax" not in page, "MathJax from a CDN: formulas need a network"
    assert "LayerNorm" in page  # the notebook's text is there
    assert "mathjax/" in capsys.readouterr().out  # it says where MathJax must go


def test_another_mathjax_can_be_named(tmp_path):
    out, url = tmp_path / "html", "https://example.org/MathJax.js?config=TeX-AMS_CHTML"
    assert main(["html", str(out), "--notebooks", str(_one_notebook(tmp_path)),
                 "--mathjax-url", url]) == 0
    assert f'src="{url}"' in (out / "01_layer_norm.html").read_text(encoding="utf-8")
