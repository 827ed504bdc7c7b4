import FoundationEssentials
public import ScanCapture
public import ScanCore

/// The camera-control keys of the config file, named as their flags: `controls` (or `control`, the flag's
/// name) and the AVFoundation modes and software exposure metering (`--focus-mode`, …, `--exposure-control`).
public struct CameraModeSettings: Sendable, Equatable {
    public var focusMode: FocusMode?
    public var exposureMode: ExposureMode?
    public var whiteBalanceMode: WhiteBalanceMode?
    public var torchMode: TorchMode?
    /// `[x, y]` in normalized device coordinates (`--exposure-point-of-interest x,y`).
    public var exposurePointOfInterest: NormalizedPoint?
    public var exposureOnRectOfInterest: Bool?
    /// Mean luma of the metered region, 0…1 of full scale.
    public var exposureTarget: Double?
    public var exposureControl: String?

    public init() {}

    /// True when no key was given.
    public var isEmpty: Bool { self == CameraModeSettings() }
}

extension DaemonConfigFile {
    /// Reads `controls`/`control` and the mode and metering keys.
    static func readCamera(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        let names = [Setting.control.key] + Setting.control.aliases
        let given = names.filter { r.container.contains(Key($0)) }
        if given.count > 1 {
            throw ConfigKeyError(
                path: [given[1]], message: "'\(given[0])' and '\(given[1])' are the same setting: give one")
        }
        for key in names {
            if let decoder = try r.decoder(key) { value.controls = try readControls(decoder, key: key) }
        }
        var m = value.cameraModes
        m.focusMode = try r.choice(.focusMode) ?? m.focusMode
        m.exposureMode = try r.choice(.exposureMode) ?? m.exposureMode
        m.whiteBalanceMode = try r.choice(.whiteBalanceMode) ?? m.whiteBalanceMode
        m.torchMode = try r.choice(.torchMode) ?? m.torchMode
        if let p: [Double] = try r.get(.exposurePointOfInterest) {
            guard p.count == 2, p.allSatisfy({ $0.isFinite && (0...1).contains($0) }) else {
                throw ConfigKeyError(
                    path: [Setting.exposurePointOfInterest.key],
                    message:
                        "'\(Setting.exposurePointOfInterest.key)' takes [x, y] in 0...1 (normalized device coordinates)"
                )
            }
            m.exposurePointOfInterest = NormalizedPoint(x: p[0], y: p[1])
        }
        m.exposureOnRectOfInterest = try r.get(.exposureOnRectOfInterest) ?? m.exposureOnRectOfInterest
        m.exposureTarget = try r.get(.exposureTarget) ?? m.exposureTarget
        try DaemonConfigFile.bounded(.exposureTarget, m.exposureTarget)
        m.exposureControl = try r.get(.exposureControl) ?? m.exposureControl
        value.cameraModes = m
    }

    /// Camera controls (issue 18): an object of control name → number, boolean or menu item name, or an array
    /// of `"NAME=VALUE"` strings as `--control` takes them.
    private static func readControls(_ decoder: any Decoder, key: String) throws -> [String: String] {
        var list: [String: String] = [:]
        if var items = try? decoder.unkeyedContainer() {
            while !items.isAtEnd {
                let text = try items.decode(String.self)
                guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                    throw ConfigKeyError(
                        path: [key], message: "'\(key)' items take NAME=VALUE, got '\(StrictJSON.printable(text))'")
                }
                list[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            return list
        }
        let k = try decoder.container(keyedBy: Key.self)
        for name in k.allKeys {
            if let b = try? k.decode(Bool.self, forKey: name) {
                list[name.stringValue] = b ? "1" : "0"
            } else if let n = try? k.decode(Int64.self, forKey: name) {
                list[name.stringValue] = String(n)
            } else if let s = try? k.decode(String.self, forKey: name) {
                list[name.stringValue] = s
            } else {
                throw ConfigKeyError(
                    path: [key, name.stringValue],
                    message:
                        "'\(key).\(StrictJSON.printable(name.stringValue))' takes a whole number, true/false or a menu item name"
                )
            }
        }
        return list
    }
}
