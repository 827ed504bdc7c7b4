internal import Foundation
internal import ScanCore

/// The plain pass's smaller copies of a large still (``BarcodeConfiguration/zxingDownscaleStillSide``).
extension StillReader {
    /// The divisors of the copies zxing-cpp reads on the plain pass of a still of `width`×`height` pixels, when
    /// neither engine reads the still itself: 3, 9, … while the copy above has a long side over
    /// ``BarcodeDetector/plainLayerThreshold`` (zxing-cpp's own `tryDownscale` pyramid: a 4032×3024 photo at
    /// 1344×1008 and 448×336). None for a still whose long side is under
    /// ``BarcodeConfiguration/zxingDownscaleStillSide``.
    func plainLayerDivisors(width: Int, height: Int) -> [Int] {
        guard max(width, height) >= configuration.zxingDownscaleStillSide else { return [] }
        var out: [Int] = []
        var divisor = 1
        while max(width, height) / divisor > BarcodeDetector.plainLayerThreshold,
            min(width, height) / divisor >= BarcodeDetector.plainLayerFactor
        {
            divisor *= BarcodeDetector.plainLayerFactor
            out.append(divisor)
        }
        return out
    }

    /// What zxing-cpp reads, for `types`, on the plain pass's smaller copies of `base` (a third of its size, a
    /// ninth, …: ``plainLayerDivisors(width:height:)``), largest first, stopping at the first copy with a read
    /// that stands. A code in a phone photo spans hundreds of pixels under a lens blur of several, and often
    /// reads only at a smaller size; reading it here spares the inverted pass and the confirmation's scans of
    /// every pass image that a read on the pyramid later costs (about 1 CPU-second on a 12 MP photo).
    ///
    /// A copy is a transformed image, so its reads meet the confirmation of transformed reads, short of what
    /// needs those scans: a 1-D read that needs confirming (``BarcodeDetector/needsConfirming(_:engine:)``) stands
    /// only when zbar reads it around it on the copy, or either engine on the still itself
    /// (``PassReader/rereadConfirming(_:readBy:on:base:frameSize:)``); a PDF417 read only
    /// when zxing-cpp reads it again at a size near the copy's, as on the ladder
    /// (``confirmLadderPDF417(_:exponent:base:frameSize:)``; zxing-cpp's own `tryDownscale`, tried first, read
    /// held-out photo seed 7373's photo-extra/005 PDF417 right and also as "eymjjx2IKLNGVLPYGGj$2Va[fpFLZXqAvrd"
    /// on a smaller copy). A read that does not stand is left to the later passes, which confirm it in full.
    /// The copies are read only when the still itself reads nothing, so a code read at full size is never
    /// joined by a read of a copy.
    func plainLayerReads(
        base: PassImage, types: Set<MetadataObjectType>, frameSize: PixelSize, density: Int
    ) throws -> [MetadataObject] {
        guard !types.isEmpty else { return [] }
        for divisor in plainLayerDivisors(width: base.plane.width, height: base.plane.height) {
            guard
                let layer = base.resized(
                    width: base.plane.width / divisor, height: base.plane.height / divisor, interpolation: 0)
            else { continue }
            var found = try zxingPassReads(
                layer, pass: .plain, base: base, types: types, frameSize: frameSize, density: density)
            let steps = log2(Double(divisor)) * Double(max(1, configuration.matrixLadderSteps))
            found = try confirmLadderPDF417(found, exponent: steps, base: base, frameSize: frameSize)
            found = try found.filter { o in
                guard BarcodeDetector.needsConfirming(o.type, engine: .zxing) else { return true }
                guard let how = try rereadConfirming(o, readBy: .zxing, on: layer, base: base, frameSize: frameSize)
                else {
                    unconfirmedReads += 1
                    return false
                }
                confirmations[how, default: 0] += 1
                return true
            }
            if !found.isEmpty { return found }
        }
        return []
    }
}

extension BarcodeDetector {
    /// zxing-cpp's `downscaleThreshold`: the plain pass reads a smaller copy of a large still while the copy above
    /// it has a long side over this many pixels (``StillReader/plainLayerDivisors(width:height:)``).
    static let plainLayerThreshold = 500
    /// zxing-cpp's `downscaleFactor`: each copy of ``StillReader/plainLayerDivisors(width:height:)`` is this many
    /// times smaller than the one above it.
    static let plainLayerFactor = 3
}
