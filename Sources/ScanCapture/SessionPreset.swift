public import ScanCore

/// Capture sizes by name (`AVCaptureSession.Preset`), resolved against what a device offers.
///
/// - `vga640x480`, `hd1280x720`, `hd1920x1080`: exactly that size, or refused.
/// - `high`: the largest offered size up to 1920×1080 (the smallest offered size if all are larger).
/// - `medium`: the offered size closest in area to 640×480.
/// - `low`: the offered size closest in area to 320×240.
public enum SessionPreset: String, CaseIterable, Sendable, Hashable {
    case low, medium, high, vga640x480, hd1280x720, hd1920x1080

    /// The size a fixed preset demands (nil for `low`/`medium`/`high`).
    public var exactSize: PixelSize? {
        switch self {
        case .vga640x480: return PixelSize(width: 640, height: 480)
        case .hd1280x720: return PixelSize(width: 1280, height: 720)
        case .hd1920x1080: return PixelSize(width: 1920, height: 1080)
        default: return nil
        }
    }

    /// The size `low`/`medium`/`high` aim for.
    var target: PixelSize {
        switch self {
        case .low: return PixelSize(width: 320, height: 240)
        case .medium: return PixelSize(width: 640, height: 480)
        default: return PixelSize(width: 1920, height: 1080)
        }
    }
}

extension CaptureDevice {
    /// The frame size `preset` means on this device.
    /// - Throws: ``ScanError/device(path:reason:)`` saying why the preset is refused and what the device offers.
    public func resolve(_ preset: SessionPreset) throws -> PixelSize {
        if let exact = preset.exactSize {
            guard supports(exact) else {
                throw ScanError.device(
                    path: path,
                    reason:
                        "preset \(preset.rawValue) needs \(exact.width)x\(exact.height), which this device does not offer; it offers: \(offeredSummary)"
                )
            }
            return exact
        }
        var candidates = discreteSizes
        for range in stepwiseRanges {
            candidates.append(range.nearest(to: preset.target))
            candidates.append(PixelSize(width: range.maxWidth, height: range.maxHeight))
            candidates.append(PixelSize(width: range.minWidth, height: range.minHeight))
        }
        guard !candidates.isEmpty else {
            throw ScanError.device(
                path: path,
                reason:
                    "preset \(preset.rawValue): the device offers no frame size libv4l2 can convert; it offers: \(offeredSummary)"
            )
        }
        func area(_ s: PixelSize) -> Double { Double(s.width * s.height) }
        switch preset {
        case .high:
            let limit = area(preset.target)
            let fitting = candidates.filter { area($0) <= limit }
            if let best = fitting.max(by: { (area($0), $0.width) < (area($1), $1.width) }) { return best }
            return candidates.min(by: { area($0) < area($1) })!
        default:
            let t = area(preset.target)
            return candidates.min(by: { abs(log2(area($0) / t)) < abs(log2(area($1) / t)) })!
        }
    }

    /// True when `preset` resolves to a size on this device (`canSetSessionPreset`).
    public func canSetSessionPreset(_ preset: SessionPreset) -> Bool { (try? resolve(preset)) != nil }

    /// Checks an explicit size.
    /// - Throws: ``ScanError/device(path:reason:)`` listing what the device offers.
    public func validate(size: PixelSize) throws {
        guard supports(size) else {
            throw ScanError.device(
                path: path,
                reason: "the device does not offer \(size.width)x\(size.height); it offers: \(offeredSummary)")
        }
    }
}

/// Parses `WxH` (e.g. `1280x720`).
public func parsePixelSize(_ text: String) -> PixelSize? {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16384, h <= 16384 else {
        return nil
    }
    return PixelSize(width: w, height: h)
}

#if canImport(Glibc)
    import Glibc
#endif
