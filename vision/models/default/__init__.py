"""The bundled model directory: prototypes of rendered training sets (see docs/vision.md)."""
