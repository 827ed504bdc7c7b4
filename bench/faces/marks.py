"""Helpers for the marks in marks.json, shared by the bench/faces scripts and scripts/make-face-fixtures."""
import math


def eye_roll(mark, default=None):
    """The roll of the marked eye line in degrees (image coordinates, y down: positive = the face's right eye,
    on the image's right, lower), or `default` when the mark has no two eyes (a profile)."""
    eyes = mark["eyes"]
    if len(eyes) != 2:
        return default
    (lx, ly), (rx, ry) = eyes
    return math.degrees(math.atan2(ry - ly, rx - lx))
