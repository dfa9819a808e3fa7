"""Trained weights (tile_embed.onnx, its provenance in tile_embed.json) and the bundled model."""
