# A 50-page PDF made with reportlab, converted to Markdown with markitdown as an upload is
# (the conversion alone timed, in ms).
set -euo pipefail
python3 - <<'PY'
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas
c = canvas.Canvas("fifty.pdf", pagesize=A4)
for page in range(1, 51):
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 800, f"Chapter {page}")
    c.setFont("Helvetica", 10)
    for line in range(60):
        c.drawString(72, 780 - line * 12, f"Page {page}, line {line}: the quarterly figures and what they mean for next year.")
    c.showPage()
c.save()
PY
start=$(date +%s%N)
markitdown fifty.pdf > fifty.pdf.md
ms=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q "Chapter 50" fifty.pdf.md || { echo "page 50 missing"; exit 1; }
echo "ok 50 pages converted in ${ms} ms ($(wc -c < fifty.pdf.md) bytes of Markdown)"
