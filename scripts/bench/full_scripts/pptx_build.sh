# Build a deck with python-pptx (as the pptx skill does), with a picture made by Pillow, then
# render it to PDF with LibreOffice and read the slide titles back with poppler.
set -euo pipefail
python3 - <<'PY'
from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.util import Inches

img = Image.new("RGB", (400, 240), "white")
ImageDraw.Draw(img).rectangle([40, 40, 360, 200], fill="steelblue")
img.save("chart.png")
deck = Presentation()
for i, title in enumerate(["Quarterly review", "Revenue", "Next steps"]):
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = title
    if i == 1:
        slide.shapes.add_picture("chart.png", Inches(2), Inches(2), width=Inches(5))
deck.save("deck.pptx")
assert len(Presentation("deck.pptx").slides) == 3
PY
soffice --headless --convert-to pdf deck.pptx >/dev/null 2>&1
text=$(pdftotext deck.pdf -)
for title in "Quarterly review" "Revenue" "Next steps"; do
  grep -q "$title" <<<"$text" || { echo "missing: $title"; exit 1; }
done
echo "ok $(pdfinfo deck.pdf | grep Pages)"
