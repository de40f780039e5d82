import io

from PIL import Image

from mirtune import figures


def test_a_saved_figure_is_a_palette_png_smaller_than_matplotlibs_own(tmp_path):
    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(6, 3))
    for k in range(6):
        ax.plot(range(50), [(i * (k + 1)) % 17 for i in range(50)], marker="o", label=f"series {k}")
    ax.legend()
    ax.set_title("a plot with text, lines and markers")
    raw = io.BytesIO()
    fig.savefig(raw, format="png", dpi=110)
    out = figures.save(fig, tmp_path / "plot.png", dpi=110)
    assert not plt.get_fignums()  # closed
    image = Image.open(out)
    assert image.format == "PNG" and image.mode == "P"
    assert image.size == Image.open(raw).size
    assert out.stat().st_size < 0.6 * raw.getbuffer().nbytes
    # the plot's own colours survive exactly (no dithering): the title's black and the first series' blue
    colours = {rgb for _, rgb in image.convert("RGB").getcolors(256)}
    assert (0, 0, 0) in colours and (31, 119, 180) in colours
