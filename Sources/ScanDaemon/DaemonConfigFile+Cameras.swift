import FoundationEssentials
import ScanCore

/// One entry of the config file's `cameras` object: a camera of a multi-camera `scand run`.
///
/// ```json
/// {"types": ["qr"], "socket": "/run/scand/scand.sock",
///  "cameras": {"door": {"device": "/dev/v4l/by-id/usb-door-video-index0", "types": ["face"]},
///              "plate": {"device": "/dev/v4l/by-id/usb-plate-video-index0", "size": "1280x720"}}}
/// ```
public struct CameraSection: Sendable, Equatable {
    /// The camera's name: the `camera` key of its events.
    public var name: String
    /// The camera's settings: the top level's, with its entry's keys over them.
    public var settings: DaemonConfigFile

    public init(name: String, settings: DaemonConfigFile) {
        self.name = name
        self.settings = settings
    }
}

extension DaemonConfigFile {
    /// The keys a camera's entry may not set: settings of the whole process (its outputs, its logging, how the
    /// run ends), which only the top level gives.
    static let processWideKeys: [Setting] = [
        .socket, .mqtt, .http, .httpToken, .httpMaxFps, .stdout, .stdoutQueue, .logLevel, .raw, .rawBytes, .oneshot,
        .timeout, .keepRunning, .exitAtEnd, .failFast, .maxPixels, .cameras,
    ]

    /// Why `name` cannot name a camera (letters, digits, `-` and `_`, 1 to 64 of them: it goes into MQTT topics
    /// and URLs), or nil when it can.
    public static func problem(withCameraName name: String) -> String? {
        let allowed = name.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                || $0 == 0x5F
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            return
                "camera name '\(StrictJSON.printable(String(name.prefix(64))))' must be 1 to 64 letters, digits, '-' or '_'"
        }
        return nil
    }
}

extension Coded {
    /// Reads the `cameras` object: each entry over `base` (the top level's values), checked as the top level
    /// is, with every error naming the entry's key (`cameras.door.fps`).
    static func readCameras(_ decoder: any Decoder, base: DaemonConfigFile) throws -> [CameraSection] {
        let container = try decoder.container(keyedBy: Key.self)
        if base.input != nil || base.device != nil {
            throw ConfigKeyError(
                path: [Setting.cameras.key],
                message: "with 'cameras', give each camera its 'input' or 'device' in its entry, not at the top level")
        }
        guard !container.allKeys.isEmpty else {
            throw ConfigKeyError(path: [Setting.cameras.key], message: "'cameras' names no camera")
        }
        var sections: [CameraSection] = []
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let name = key.stringValue
            let path = [Setting.cameras.key, name]
            if let problem = DaemonConfigFile.problem(withCameraName: name) {
                throw ConfigKeyError(path: path, message: problem)
            }
            let entry = try container.nestedContainer(keyedBy: Key.self, forKey: key)
            for setting in DaemonConfigFile.processWideKeys {
                let names = setting.section.map { [$0] } ?? [setting.name] + setting.aliases
                guard let given = names.first(where: { entry.contains(Key($0)) }) else { continue }
                throw ConfigKeyError(
                    path: path + [given],
                    message:
                        "'\(setting.key)' is a setting of the whole run: give it at the top level, not in camera '\(name)'"
                )
            }
            var value = base
            value.cameras = []
            do {
                var r = KeyReader(entry, prefix: "\(Setting.cameras.key).\(name).")
                try readAll(&r, into: &value)
                try r.finish()
                try value.validate()
            } catch let error as ConfigKeyError where error.path.first != Setting.cameras.key {
                throw ConfigKeyError(path: path + error.path, message: "camera '\(name)': \(error.message)")
            }
            if entry.contains(Key(Setting.preset.key)) && !entry.contains(Key(Setting.size.key)) {
                value.size = nil  // the camera's preset decides its size, not the top level's size
            }
            guard (value.input == nil) != (value.device == nil) else {
                throw ConfigKeyError(path: path, message: "camera '\(name)' needs one 'input' or 'device'")
            }
            sections.append(CameraSection(name: name, settings: value))
        }
        return sections
    }
}
