import FoundationEssentials
import Logging
import ScanCapture
import ScanCore
import ScanKit

extension DaemonConfigFile {
    /// Checks every value against the same bounds as the command-line flags: the keys that belong to a
    /// configuration type (reader, faces, camera, presence) are checked by building that type from the file
    /// alone and calling its `validate()`, so the bounds live in one place.
    /// - Throws: a ``ConfigKeyError`` naming the key.
    func validate() throws {
        func check(_ ok: Bool, _ setting: Setting, _ message: String) throws {
            if !ok {
                throw ConfigKeyError(
                    path: setting.key.split(separator: ".").map(String.init), message: "'\(setting.key)' \(message)")
            }
        }
        try bounded(.stdoutQueue, stdoutQueue)
        try bounded(.httpMaxFps, httpMaxFps)
        try bounded(.maxPixels, maxPixels)
        if let r = rectOfInterest {
            try check(
                [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), .rectOfInterest, "must be four finite numbers")
        }
        if let r = rectOfInterestView {
            try check(
                [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite) && r.width > 0 && r.height > 0,
                .rectOfInterestView,
                "must be four finite numbers with a positive width and height")
        }
        if let v = logLevel {
            try check(
                Logger.Level(rawValue: v) != nil, .logLevel,
                "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(StrictJSON.printable(v))'"
            )
        }
        try bounded(.clientQueue, socket.clientQueue)
        try bounded(.clientStallTimeout, socket.stallTimeout)
        try bounded(.socketSendBuffer, socket.sendBuffer)
        try check(!(preset != nil && size != nil), .size, "and 'preset' exclude each other: give one")
        try check(
            !(rectOfInterest != nil && rectOfInterestView != nil), .rectOfInterestView,
            "and 'rectOfInterest' exclude each other: give one")
        do {
            var output = OutputConfiguration()
            if let types {
                do {
                    output.metadataObjectTypes = try MetadataObjectType.parseList(
                        types, available: MetadataOutput.availableMetadataObjectTypes)
                } catch {
                    throw ConfigKeyError(path: ["types"], message: "'types': \(error)")
                }
            }
            apply(to: &output)
            try output.barcode.validate()
            try output.face.validate()
            var capture = CaptureConfiguration(device: device ?? "")
            apply(to: &capture)
            try capture.validate()
            var presence = PresenceConfiguration()
            apply(to: &presence)
            try presence.validate()
        } catch let error as InvalidSetting {
            throw ConfigKeyError(error)
        }
    }

    /// Checks `value`, when given, against the bounds `setting` declares.
    /// - Throws: a ``ConfigKeyError`` naming the key.
    static func bounded(_ setting: Setting, _ value: Int?) throws {
        do { if let value { try setting.check(value) } } catch { throw ConfigKeyError(error) }
    }

    /// Checks `value`, when given, against the bounds `setting` declares.
    static func bounded(_ setting: Setting, _ value: Double?) throws {
        do { if let value { try setting.check(value) } } catch { throw ConfigKeyError(error) }
    }

    private func bounded(_ setting: Setting, _ value: Int?) throws { try Self.bounded(setting, value) }
    private func bounded(_ setting: Setting, _ value: Double?) throws { try Self.bounded(setting, value) }
}
