"""One carrier per media format: PNG, TIFF, native DICOM and the JSON waveform.

Each module holds its format's constants (signatures, transfer syntaxes, lead
names, codes), one strict sniff over the raw bytes and one decode.  The
multimodal engine sniffs with them; the components decode with them.  The
size limits every carrier shares live in :mod:`pytest_openmed.carriers.limits`.

Importing a carrier is cheap: numpy, Pillow, pydicom and tifffile load only
when a decode needs them.
"""
