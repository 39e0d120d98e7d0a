# A matplotlib chart with Chinese labels: every glyph must come from a real font (matplotlib
# warns "Glyph … missing from font" and draws boxes otherwise).
import warnings

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib import font_manager

cjk = [f.name for f in font_manager.fontManager.ttflist if "CJK" in f.name]
assert cjk, "no CJK font"
plt.rcParams["font.sans-serif"] = [cjk[0], "DejaVu Sans"]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fig, ax = plt.subplots()
    ax.bar(["一月", "二月", "三月"], [120, 150, 90])
    ax.set_title("季度销售额")
    ax.set_ylabel("万元")
    fig.savefig("sales.png", dpi=100)
missing = [str(w.message) for w in caught if "missing from" in str(w.message)]
assert not missing, missing
print("ok", cjk[0])
