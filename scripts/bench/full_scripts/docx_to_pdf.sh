# Write a Word document with python-docx (English and Chinese), convert it to PDF with
# LibreOffice headless, and read the text back with poppler.
set -euo pipefail
python3 - <<'PY'
from docx import Document
doc = Document()
doc.add_heading("Project report", level=1)
doc.add_paragraph("The results are in. 结果已经出来了。")
doc.save("report.docx")
PY
soffice --headless --convert-to pdf report.docx >/dev/null 2>&1
text=$(pdftotext report.pdf -)
grep -q "Project report" <<<"$text" && grep -q "结果已经出来了" <<<"$text" || { echo "text lost: $text"; exit 1; }
echo "ok $(pdfinfo report.pdf | grep Pages)"
