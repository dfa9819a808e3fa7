"""Tile identity: a learned embedding, prototypes enrolled from the table's own tiles, and
abstention.

The embedding network (vision/embedder.py) maps a tile crop to a 64-d unit vector. Enrolment stores
the embeddings of a few photos of each kind (possibly from several physical sets). A crop is
scored against each kind by its best cosine similarity to that kind's enrolled vectors;
a softmax over kinds with a temperature fitted on the enrolment photos themselves
(leave-one-out) gives the confidence, and below ``threshold`` the answer is ``None``:
better to ask the table than to guess.

Enrolment turns each photo into several prototypes (small shifts, scales, exposure, colour
cast, blur: what the camera does to a tile between frames), so three photos cover more of
how a kind can look; the leave-one-out fit leaves out a photo with all its variants. A model
may also keep *background* prototypes (the bundled ones, many rendered art sets): a tile of a
set that was never enrolled is then still near something, while the enrolled set keeps the
lead by a margin (``background_margin`` is subtracted from background similarities).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bonus import (
    BONUS_KINDS,
    BonusReader,
    BonusReading,
    default_bonus_reader,
    softmax,
)
from vision.bonus_gate import (
    GateBars,
    bonus_evidence,
    default_bars,
    gate,
    gated,
)
from vision.bonus_ocr import BonusOcr, OcrBars, default_bonus_ocr, read_text
from vision.crops import normalise_crop
from vision.embedder import (
    EMBEDDER_FILE,
    MODELS_DIR,
    Embedder,
    ModelError,
    Vectors,
    quantised_path,
    shifted,
    unit,
    warp,
)
from vision.gate_decision import decide, wants_shifted
from vision.gate_reading import ReadAhead, read_gated, to_read
from vision.halves import collect
from vision.identity import DEFAULT_THRESHOLD, UNLIKE, UNSURE, Identity
from vision.image import Image
from vision.photo_looks import PhotoLooks, answered_from_views
from vision.prototypes import PrototypeBank, split_kinds

DEFAULT_MODEL_DIR = MODELS_DIR / "default"
FORMAT_VERSION = 1
DEFAULT_TEMPERATURE = 0.05
# What the recogniser's callers import from here (the gate and the answer type live in their
# own modules).
__all__ = [
    "DEFAULT_THRESHOLD",
    "MODELS_DIR",
    "GateBars",
    "Identity",
    "ModelError",
    "Recogniser",
    "bonus_evidence",
    "default_bars",
    "enrolment_variants",
    "gate",
    "gated",
]
# A crop named with less confidence than this is looked at again, averaged over four copies
# shifted by RETRY_SHIFT_PX (the finder's localisation error). Measured (bench/vision): on the
# finder's crops of whole frames of three held-out sets, 0.7 names as many right as 0.8
# (94.8 / 98.9 / 91.0 %, against 94.4 / 98.2 / 91.0 % with one look) and looks again at 4-11 %
# of crops instead of 10-19 %; on rendered crops it keeps what shifting every crop gains.
DEFAULT_RETRY_BELOW = 0.7
RETRY_SHIFT_PX = 3
# Measured on held-out and mixed sets (bench/vision/bench_vision.py): 0.08 keeps the enrolled
# set ahead and still lets a never-enrolled set match the bundled art.
DEFAULT_BACKGROUND_MARGIN = 0.08


def enrolment_variants(crop: Image) -> list[Image]:
    """One enrolment photo as the camera may see the same tile: shifted by the finder's
    localisation error, a little nearer or farther, darker or brighter, warmer or colder
    light, slightly out of focus."""
    crop = normalise_crop(crop)
    h, w = crop.shape[:2]
    out = shifted(crop, 3)
    for scale in (0.92, 1.08):
        out.append(warp(crop, np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), 0, scale))))
    f = crop.astype(np.float32) / 255
    out += [np.asarray(np.clip(255 * f**g, 0, 255), np.uint8) for g in (0.7, 1.4)]
    for cast in ((1.15, 1.0, 0.87), (0.87, 1.0, 1.15)):  # BGR gains
        out.append(np.asarray(np.clip(255 * f * np.array(cast, np.float32), 0, 255), np.uint8))
    out.append(np.asarray(cv2.GaussianBlur(crop, (3, 3), 0.8), np.uint8))
    return out


@dataclass
class Recogniser:
    embedder: Embedder
    labels: list[str]  # one per enrolled vector
    vectors: Vectors
    temperature: float = DEFAULT_TEMPERATURE
    threshold: float = DEFAULT_THRESHOLD
    # Below this cosine similarity to every enrolled photo, a crop is unlike anything enrolled
    # (a sleeve, a coin, a tile of an unknown set): abstain however the kinds compare.
    min_similarity: float = 0.0
    # Prototypes of other sets (the bundled art), counted ``background_margin`` lower.
    background_labels: list[str] = field(default_factory=list)
    background: Vectors = field(default_factory=lambda: np.zeros((0, 64), np.float32))
    background_margin: float = DEFAULT_BACKGROUND_MARGIN
    # Test-time shift augmentation in pixels (0: off; costs 5x the embedding time).
    shift_px: int = 0
    # Below this confidence a crop gets a second look with shifted copies (0: never).
    retry_below: float = DEFAULT_RETRY_BELOW
    # The second look at crops named "some bonus tile" (None: none).
    bonus_reader: BonusReader | None = field(default_factory=default_bonus_reader)
    # The gate's bars (vision/models/gate_bars.json, chosen by bench/vision/choose_bars.py).
    bars: GateBars = field(default_factory=default_bars)
    # The third look, at the printed name of a crop the gate put among the bonus tiles or
    # could not place (None: none).
    bonus_ocr: BonusOcr | None = field(default_factory=default_bonus_ocr)
    ocr_bars: OcrBars = field(default_factory=OcrBars)
    # Views of a photo wider than the scanner's cut looked at before abstaining on it.
    photo_looks: PhotoLooks = field(default_factory=PhotoLooks)
    _banks_built: _Banks | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(self.labels))  # in order of first appearance

    def _banks(self) -> _Banks:
        """The kinds (enrolled first, then those only the background has) and the two
        prototype banks, built once for the prototypes in place."""
        built = self._banks_built
        if built is None or not built.built_from(self):
            kinds = self.kinds
            if self.background_labels:
                own = set(kinds)
                kinds += [k for k in dict.fromkeys(self.background_labels) if k not in own]
            background = None
            if self.background_labels:
                background = PrototypeBank(self.background_labels, self.background, kinds)
            built = self._banks_built = _Banks(
                self.vectors,
                self.background,
                (len(self.labels), len(self.background_labels)),
                kinds,
                PrototypeBank(self.labels, self.vectors, kinds),
                background,
            )
        return built

    def _scores(
        self, embeddings: Vectors, helper: Executor | None = None
    ) -> tuple[list[str], NDArray[np.float64]]:
        """Per crop and kind, the best similarity to that kind's enrolled vectors (or, less
        the margin, to its background vectors). ``helper``: an idle thread that works out
        the larger bank's last kinds meanwhile, about half of all the prototypes (the same
        numbers: each similarity is its own dot product, and each kind's best its own)."""
        banks = self._banks()
        enrolled, background = banks.enrolled, banks.background
        larger = (
            enrolled if background is None or enrolled.columns >= background.columns else background
        )
        split, far = split_kinds(
            larger, enrolled.columns + (background.columns if background else 0), embeddings, helper
        )
        start = time.perf_counter()
        scores = enrolled.best_per_kind(embeddings, 0, split if larger is enrolled else None)
        other = None
        if background is not None:
            other = background.best_per_kind(embeddings, 0, split if larger is background else None)
        if far is not None and split is not None:
            # Taken back, or done here too if late (vision/halves.py). Each kind is in one
            # part, -2 in the other.
            first = split

            def here() -> NDArray[np.float64]:
                return larger.best_per_kind(embeddings, first)

            rest = collect(far, here, time.perf_counter() - start)
            if other is None or larger is enrolled:
                scores = np.maximum(scores, rest)
            else:
                other = np.maximum(other, rest)
        if other is not None:
            scores = np.maximum(scores, other - self.background_margin)
        return banks.kinds, scores

    def identify_embeddings(
        self, embeddings: Vectors, helper: Executor | None = None
    ) -> list[Identity]:
        """Each crop's first look from its vector (``helper``: as for :meth:`_scores`)."""
        kinds, scores = self._scores(embeddings, helper)
        probs = softmax(scores / self.temperature)
        bonus = np.array([k in BONUS_KINDS for k in kinds])
        shares = probs[:, bonus].sum(axis=1)
        sides = _side_bests(probs, bonus, kinds)
        # Every crop's best kind and the bars on it at once, as arrays.
        best = probs.argmax(axis=1)
        rows = np.arange(len(probs))
        conf, similarity = probs[rows, best], scores[rows, best]
        similar = similarity >= self.min_similarity
        sure = (conf >= self.threshold) & similar
        conf_of, similarity_of, share_of = conf.tolist(), similarity.tolist(), shares.tolist()
        similar_of, sure_of = similar.tolist(), sure.tolist()
        out = []
        for n, k in enumerate(best.tolist()):
            is_similar, is_sure = similar_of[n], sure_of[n]
            best_bonus, bonus_confidence, best_other, other_confidence = sides[n]
            out.append(
                Identity(
                    kinds[k] if is_sure else None,
                    conf_of[n],
                    kinds[k],
                    share_of[n],
                    best_bonus,
                    bonus_confidence,
                    best_other,
                    other_confidence,
                    similar=is_similar,
                    similarity=similarity_of[n],
                    why=None if is_sure else UNSURE if is_similar else UNLIKE,
                )
            )
        return out

    def identify(self, crops: Sequence[Image], helper: Executor | None = None) -> list[Identity]:
        """``helper``: a thread for half of the network's work (:meth:`Embedder.embed`)."""
        return self.identify_embedded(crops, self.embed(crops, helper), helper)

    def embed(self, crops: Sequence[Image], helper: Executor | None = None) -> Vectors:
        """The crops' vectors as :meth:`identify` names them (the heavier half of it)."""
        return self.embedder.embed(crops, shift_px=self.shift_px, helper=helper)

    def identify_embedded(
        self, crops: Sequence[Image], vectors: Vectors, helper: Executor | None = None
    ) -> list[Identity]:
        """:meth:`identify` of crops whose vectors :meth:`embed` gave."""
        first = self.identify_embeddings(vectors, helper)
        ahead = self._read_ahead(crops, first, helper)
        # While the second thread reads, this one looks again at the unsure crops alone.
        identities = self.second_look(crops, vectors, first, None if ahead else helper)
        answers = self.bonus_look(crops, identities, vectors, helper, ahead)
        return answered_from_views(self, crops, answers, vectors)

    def _read_ahead(
        self, crops: Sequence[Image], first: list[Identity], helper: Executor | None
    ) -> ReadAhead | None:
        """The bonus reader's run on ``helper``, begun at once, on the crops the gate will
        read whose first look is final (sure enough to have no second look), when there are
        unsure crops for this thread to look at again meanwhile; else None."""
        reader = self.bonus_reader
        if reader is None or helper is None or self.shift_px or not self.retry_below:
            return None
        final = [i.confidence >= self.retry_below for i in first]
        if all(final):
            return None  # no second look: the gate's reads are shared in two halves
        early = [n for n, i in enumerate(first) if final[n] and to_read(i, self.bars)]
        if not early:
            return None
        return early, helper.submit(reader.read, [crops[n] for n in early])

    def bonus_look(
        self,
        crops: Sequence[Image],
        identities: list[Identity],
        vectors: Vectors | None = None,
        helper: Executor | None = None,
        ahead: ReadAhead | None = None,
    ) -> list[Identity]:
        """The bonus gate: every crop whose first look is a bonus tile, leans that way or is
        unsure (``gated``) is read by the bonus-tile reader, and the two looks together put
        it among the bonus tiles, among the other kinds, or abstain (:func:`gate`); a crop
        whose first look decides the gate's answer alone is not read (:func:`settled`). A crop
        the gate puts on one side is only ever named as a kind of that side: never a bonus
        tile for a suit tile, nor the reverse, unless both looks agree on it. With
        ``vectors`` (the crops' own), a crop the gate doubts or cannot place gets the second
        look it had not had, and the gate's answer from that. ``ahead``: crops already
        being read on ``helper`` (:meth:`_read_ahead`), and that run. Each crop's answer is
        :func:`decide`'s, on the readings and shifted looks batched here."""
        reader = self.bonus_reader
        if reader is None:
            return identities
        bars = self.bars
        gated_crops = [n for n, identity in enumerate(identities) if gated(identity, bars)]
        # The gate's answer where the first look decides it whatever the reader reads (a
        # reading, 0.8 ms a crop, would not change it) needs no reading (``to_read``).
        looked = [n for n in gated_crops if to_read(identities[n], bars)]
        readings = read_gated(reader, crops, looked, helper, ahead) if looked else {}
        retry = self.retry_below
        out = list(identities)
        for n in gated_crops:
            out[n] = decide(identities[n], readings.get(n), None, self.threshold, retry, bars)
        if vectors is not None and not self.shift_px and retry:
            out = self._look_again(crops, identities, out, readings, gated_crops, vectors, helper)
        return read_text(self.bonus_ocr, crops, out, looked, self.ocr_bars, helper)

    def _look_again(
        self,
        crops: Sequence[Image],
        identities: list[Identity],
        out: list[Identity],
        readings: dict[int, BonusReading],
        gated_crops: list[int],
        vectors: Vectors,
        helper: Executor | None,
    ) -> list[Identity]:
        """The gate's answers (``out``) after the look through shifted copies, taken in one
        run of the ``gated_crops`` whose answer it may change (:func:`wants_shifted`): a crop
        the gate doubts or cannot place goes through the gate again with that look and the
        same reading (shifted copies bring a crop of a set never enrolled nearer its kind: on
        the mixed sets, held-out sets 70.5 to 71.9 % right, no more wrong; 0.5-1.2 % of the
        other sets' crops looked at again, where looking again at every crop unlike its
        prototypes took 3-4 %); one the gate names a bonus tile is abstained on when that look
        puts it elsewhere. The crops never gated are left alone, a table's own bonus tiles
        among them, whose look again cost the enrolled scan 1.5-2.5 ms a frame."""
        bars, retry = self.bars, self.retry_below
        seen = [n for n in gated_crops if wants_shifted(identities[n], out[n], retry, bars)]
        if not seen:
            return out
        shifted_vectors = self._shifted(crops, seen, vectors, helper)
        out = list(out)
        for n, look in zip(seen, self.identify_embeddings(shifted_vectors), strict=True):
            first = identities[n]
            out[n] = decide(first, readings.get(n), look, self.threshold, retry, bars)
        return out

    def _shifted(
        self, crops: Sequence[Image], picked: list[int], vectors: Vectors, helper: Executor | None
    ) -> Vectors:
        """The ``picked`` crops' vectors averaged with four shifted copies' (``vectors``: the
        crops' own)."""
        return self.embedder.embed(
            [crops[n] for n in picked],
            shift_px=RETRY_SHIFT_PX,
            unshifted=vectors[picked],
            helper=helper,
        )

    def second_look(
        self,
        crops: Sequence[Image],
        vectors: Vectors,
        identities: list[Identity],
        helper: Executor | None = None,
    ) -> list[Identity]:
        """The identities again, where one is less sure than ``retry_below``: named afresh
        from the crop's vector (``vectors``: the crops' own) averaged with four shifted
        copies'."""
        if self.shift_px or not self.retry_below:
            return identities
        unsure = [n for n, i in enumerate(identities) if i.confidence < self.retry_below]
        if not unsure:
            return identities
        vectors = self._shifted(crops, unsure, vectors, helper)
        out = list(identities)
        for n, again in zip(unsure, self.identify_embeddings(vectors), strict=True):
            out[n] = again
        return out

    # -- enrolment and storage ------------------------------------------------------------------

    @classmethod
    def enrol(
        cls,
        embedder: Embedder,
        samples: Sequence[tuple[str, Image]],
        threshold: float = DEFAULT_THRESHOLD,
        augment: bool = True,
    ) -> Recogniser:
        """Prototypes from labelled tile images (each photo augmented into several unless
        ``augment`` is false); the temperature is fitted leave-one-photo-out."""
        labels: list[str] = []
        images: list[Image] = []
        groups: list[int] = []
        for n, (label, image) in enumerate(samples):
            variants = enrolment_variants(image) if augment else [image]
            labels += [label] * len(variants)
            images += variants
            groups += [n] * len(variants)
        vectors = embedder.embed(images)
        recogniser = cls(embedder, labels, vectors, threshold=threshold)
        fitted = recogniser._fit_leave_one_out(np.array(groups))
        recogniser.temperature, recogniser.min_similarity = fitted
        return recogniser

    def with_background(self, other: Recogniser, margin: float = DEFAULT_BACKGROUND_MARGIN) -> None:
        """Keep ``other``'s prototypes (and similarity floor) behind this set's own."""
        self.background_labels = list(other.labels)
        self.background = other.vectors
        self.background_margin = margin
        self.min_similarity = min(self.min_similarity, other.min_similarity)

    def _fit_leave_one_out(self, groups: NDArray[np.int_] | None = None) -> tuple[float, float]:
        """Each enrolled photo classified by the others (never by its own variants: same
        ``groups`` entry): the temperature that makes those confidences honest (least
        log-loss), and the similarity floor (a little below all but the lowest 2 % of
        same-kind similarities)."""
        kinds = self.kinds
        label_idx = np.array([kinds.index(lab) for lab in self.labels])
        if groups is None:
            groups = np.arange(len(self.labels))
        # A photo whose kind has no other photo cannot be classified by the others: leave
        # it out of the fit.
        photos = {(int(k), int(g)) for k, g in zip(label_idx, groups, strict=True)}
        counts = np.bincount([k for k, _ in photos], minlength=len(kinds))
        keep = counts[label_idx] >= 2
        if keep.sum() < len(kinds):
            return DEFAULT_TEMPERATURE, 0.0
        sims = self.vectors @ self.vectors.T
        sims[groups[:, None] == groups[None, :]] = -2.0
        scores = np.full((len(self.labels), len(kinds)), -2.0)
        for k in range(len(kinds)):
            scores[:, k] = sims[:, label_idx == k].max(axis=1)
        scores, label_idx = scores[keep], label_idx[keep]
        best_t, best_loss = DEFAULT_TEMPERATURE, float("inf")
        for t in np.geomspace(0.005, 0.5, 40):
            p = softmax(scores / t)[np.arange(len(label_idx)), label_idx]
            loss = float(-np.log(np.maximum(p, 1e-12)).mean())
            if loss < best_loss:
                best_t, best_loss = float(t), loss
        own = scores[np.arange(len(label_idx)), label_idx]
        floor = float(np.percentile(own, 2)) - 0.05
        return best_t, max(0.0, floor)

    def save(
        self,
        folder: Path,
        images: int,
        copy_embedder: bool = True,
        sources: np.ndarray | None = None,
    ) -> None:
        """Write the model directory; it holds its own copy of the network unless
        ``copy_embedder`` is false (the bundled default refers to the package's copy).
        ``sources``, one per prototype, names the art set each was enrolled from (for the
        benchmarks that leave a set's own art out; the recogniser does not read it)."""
        if sources is not None and len(sources) != len(self.labels):
            raise ValueError(f"{len(sources)} sources for {len(self.labels)} prototypes")
        folder.mkdir(parents=True, exist_ok=True)
        embedder_ref = EMBEDDER_FILE
        if not copy_embedder:
            embedder_ref = os.path.relpath(self.embedder.path, folder)
        elif self.embedder.path.resolve() != (folder / EMBEDDER_FILE).resolve():
            shutil.copyfile(self.embedder.path, folder / EMBEDDER_FILE)
            int8 = quantised_path(self.embedder.path)
            if int8.exists():
                shutil.copyfile(int8, quantised_path(folder / EMBEDDER_FILE))
        arrays: dict[str, Any] = {
            "labels": np.array(self.labels),
            "vectors": self.vectors.astype(np.float16),
            "background_labels": np.array(self.background_labels, dtype=str),
            "background": self.background.astype(np.float16),
        }
        if sources is not None:
            arrays["sources"] = np.asarray(sources).astype(str)
        np.savez_compressed(folder / "prototypes.npz", **arrays)
        meta = {
            "version": FORMAT_VERSION,
            "embedder": embedder_ref,
            "temperature": self.temperature,
            "threshold": self.threshold,
            "min_similarity": self.min_similarity,
            "background_margin": self.background_margin,
            "shift_px": self.shift_px,
            "retry_below": self.retry_below,
            "kinds": len(self.kinds),
            "images": images,
        }
        (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> Recogniser:
        meta_path = folder / "meta.json"
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(
                f"{folder} is not a model directory (no meta.json); create one "
                "with `mjtable vision enroll`"
            ) from None
        except (OSError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            raise ModelError(f"{meta_path} is not readable JSON: {exc!s:.200}") from None
        if not isinstance(meta, dict) or meta.get("version") != FORMAT_VERSION:
            raise ModelError(f"{meta_path}: unknown model format; enrol again")
        try:
            with np.load(folder / "prototypes.npz") as data:
                labels = [str(v) for v in data["labels"]]
                vectors = unit(data["vectors"].astype(np.float32))
                background_labels: list[str] = []
                background = np.zeros((0, vectors.shape[1]), np.float32)
                if "background" in data.files and len(data["background_labels"]):
                    background_labels = [str(v) for v in data["background_labels"]]
                    background = unit(data["background"].astype(np.float32))
            embedder = Embedder(folder / str(meta.get("embedder", EMBEDDER_FILE)))
            return cls(
                embedder,
                labels,
                vectors,
                float(meta["temperature"]),
                float(meta["threshold"]),
                float(meta.get("min_similarity", 0.0)),
                background_labels,
                background,
                float(meta.get("background_margin", DEFAULT_BACKGROUND_MARGIN)),
                int(meta.get("shift_px", 0)),
                float(meta.get("retry_below", DEFAULT_RETRY_BELOW)),
            )
        except ModelError:
            raise
        except Exception as exc:  # numpy, zipfile, onnxruntime and OpenCV each raise their own
            raise ModelError(f"{folder}: model files are damaged: {exc!r:.300}") from exc


@dataclass(frozen=True)
class _Banks:
    """A recogniser's prototype banks, and what they were built from (the very arrays, and
    how many labels), so that a change of prototypes builds them again."""

    vectors: Vectors
    background_vectors: Vectors
    sizes: tuple[int, int]
    kinds: list[str]
    enrolled: PrototypeBank
    background: PrototypeBank | None

    def built_from(self, recogniser: Recogniser) -> bool:
        return (
            self.vectors is recogniser.vectors
            and self.background_vectors is recogniser.background
            and self.sizes == (len(recogniser.labels), len(recogniser.background_labels))
        )


def _side_bests(
    probs: NDArray[np.float64], bonus: NDArray[np.bool_], kinds: list[str]
) -> list[tuple[str | None, float, str | None, float]]:
    """Per crop, the likeliest bonus kind and its share of the bonus probability, and the
    likeliest other kind and its share of the others'."""
    sides: list[tuple[list[str | None], NDArray[np.float64]]] = []
    for mask in (bonus, ~bonus):
        idx = np.flatnonzero(mask)
        if not len(idx):
            sides.append(([None] * len(probs), np.zeros(len(probs))))
            continue
        part = probs[:, idx]
        best = part.argmax(axis=1)
        share = part[np.arange(len(probs)), best] / np.maximum(part.sum(axis=1), 1e-12)
        named: list[str | None] = [kinds[i] for i in idx[best].tolist()]
        sides.append((named, share))
    (b_kind, b_share), (o_kind, o_share) = sides
    return list(zip(b_kind, b_share.tolist(), o_kind, o_share.tolist(), strict=True))
