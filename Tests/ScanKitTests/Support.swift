import ScanCore
import ScanCapture

func ScanCapture_open(_ path: String) throws -> any FrameSource { try openFileSource(path: path) }
