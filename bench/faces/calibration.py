"""The face box calibrations scand ships, read from Sources/ScanDetection/FaceDetector.swift (used by calibrate.py
and plain_centerface.py, so neither writes the values in)."""
import os, re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shipped():
    """detector name ("centerface", "haar", "lbp") -> (scale, shiftDown) of FaceDetector.calibration(for:)."""
    src = open(os.path.join(ROOT, "Sources/ScanDetection/FaceDetector.swift")).read()
    return {k: (float(s), float(d)) for k, s, d in re.findall(
        r"case \.(\w+): return FaceBoxCalibration\(scale: ([\d.]+), shiftDown: (-?[\d.]+)\)", src)}
