# Recalculate an xlsx with LibreOffice headless (as the xlsx skill's recalc.py does): formulas
# written by openpyxl have no values until a spreadsheet engine computes them.
set -euo pipefail
python3 - <<'PY'
from openpyxl import Workbook
wb = Workbook()
ws = wb.active
ws["A1"], ws["A2"], ws["A3"] = 2, 3, "=A1*A2+SUM(A1:A2)"
ws["B1"] = '=CONCATENATE("total ", A3)'
wb.save("model.xlsx")
PY
mkdir -p out
soffice --headless --calc --convert-to xlsx --outdir out model.xlsx >/dev/null 2>&1
python3 - <<'PY'
from openpyxl import load_workbook
ws = load_workbook("out/model.xlsx", data_only=True).active
assert ws["A3"].value == 11 and ws["B1"].value == "total 11", (ws["A3"].value, ws["B1"].value)
print("ok", ws["A3"].value, ws["B1"].value)
PY
