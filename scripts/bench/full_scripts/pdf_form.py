# Fill a PDF form with pypdf (as the pdf skill's fill_fillable_fields.py does): a form made
# with reportlab's AcroForm, two fields filled, the values read back.
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

c = canvas.Canvas("form.pdf", pagesize=A4)
c.drawString(72, 780, "Application form")
c.acroForm.textfield(name="full_name", x=72, y=720, width=300, height=20)
c.acroForm.textfield(name="city", x=72, y=680, width=300, height=20)
c.save()

reader = PdfReader("form.pdf")
writer = PdfWriter()
writer.append(reader)
writer.update_page_form_field_values(writer.pages[0], {"full_name": "Ada Lovelace", "city": "London"})
writer.set_need_appearances_writer()
with open("filled.pdf", "wb") as f:
    writer.write(f)

fields = PdfReader("filled.pdf").get_fields()
values = {k: v.get("/V") for k, v in fields.items()}
assert values == {"full_name": "Ada Lovelace", "city": "London"}, values
print("ok", values)
