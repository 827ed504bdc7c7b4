import ScanCapture
import ScanCore

/// The JPEG decoder (libjpeg-turbo, with scand's glue in CScanImageIO's decode.cpp: the header and budget
/// check, the reduced-size decode of an image over the budget with libjpeg's memory cap, CMYK/YCCK to luma,
/// truncation) through the public still-image entry.
///
/// Inputs that do not start with a JPEG's SOI marker (`FF D8 FF`) are skipped. The pixel budget is 2^16, so
/// most seeds (400×300) are decoded at a reduced size, and the plane must then be the reduced size the note
/// names.
enum JPEGTarget {
    static let limits = DecoderLimits(maxPixels: 1 << 16)

    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= 3, data[0] == 0xFF, data[1] == 0xD8, data[2] == 0xFF else { return }
        StillImageCheck.run(data, name: "fuzz.jpg", limits: limits) { source, plane in
            if let note = source.info.note {
                fuzzCheck(note.contains("read at \(plane.width)x\(plane.height),"), "note '\(note)' for a \(plane.width)x\(plane.height) plane")
            }
        }
    }
}
