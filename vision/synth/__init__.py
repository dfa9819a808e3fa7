"""Synthetic tables, apart from the live pipeline: tile artwork (``artwork``, ``procedural``),
the renderer (``render``), synthetic crops (``crops``), the rendered camera (``source``) and
the enrolment of a rendered set (``table_enrol``). For training, tests, benchmarks and
``mjtable simulate``; the live pipeline imports none of it, except the camera source
``render:SEED`` (vision/capture.py), which loads it only when asked for."""
