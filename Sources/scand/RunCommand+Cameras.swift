import ScanCore
import ScanDaemon

#if canImport(Glibc)
    import Glibc
#endif

extension RunCommand {
    /// The cameras of a multi-camera run, by name, each with its settings: the config file's `cameras`
    /// entries (over its top level), then each `--camera NAME=SOURCE` (a new camera with the top level's
    /// settings, or a new source for an entry of the file). Empty: a one-camera run (`--input`/`--device`).
    /// - Throws: `ScanError.invalidArgument` naming the flag or the file.
    func cameraSettings(file: DaemonConfigFile, path: String?) throws -> [(String, DaemonConfigFile)] {
        var cameras = file.cameras.map { ($0.name, $0.settings) }
        if cameras.isEmpty && sources.camera.isEmpty { return [] }
        if input != nil || device != nil {
            throw ScanError.invalidArgument(
                "give the cameras with --camera NAME=SOURCE (or \"cameras\" in the config file), not --input or --device"
            )
        }
        if !file.cameras.isEmpty && (file.input != nil || file.device != nil) {
            throw ScanError.invalidArgument(
                "\(path ?? "config"): give each camera its input or device, not the top level")
        }
        for argument in sources.camera {
            guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex,
                argument.index(after: eq) != argument.endIndex
            else {
                throw ScanError.invalidArgument(
                    "--camera takes NAME=SOURCE (e.g. door=/dev/video0 or shelf=clip.y4m), got '\(Self.printable(argument))'"
                )
            }
            let name = String(argument[..<eq])
            let source = String(argument[argument.index(after: eq)...])
            if let problem = DaemonConfigFile.problem(withCameraName: name) {
                throw ScanError.invalidArgument("--camera: \(problem)")
            }
            var settings = cameras.first { $0.0 == name }?.1 ?? file
            settings.cameras = []
            settings.input = nil
            settings.device = nil
            if Self.isDevice(source) { settings.device = source } else { settings.input = source }
            if let i = cameras.firstIndex(where: { $0.0 == name }) {
                if sources.camera.filter({ $0.hasPrefix(name + "=") }).count > 1 {
                    throw ScanError.invalidArgument("--camera: '\(name)' given twice")
                }
                cameras[i].1 = settings
            } else {
                cameras.append((name, settings))
            }
        }
        let stdin = cameras.filter { $0.1.input == "-" }
        if stdin.count > 1 {
            throw ScanError.invalidArgument(
                "only one camera can read stdin ('-'): \(stdin.map(\.0).joined(separator: ", "))")
        }
        return cameras
    }

    /// A SOURCE that names a V4L2 device: a character device, or a path under /dev/ (a camera that is not
    /// plugged in yet is waited for).
    static func isDevice(_ source: String) -> Bool {
        var st = stat()
        if stat(source, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFCHR }
        return source.hasPrefix("/dev/")
    }

    /// `text` with control characters shown as `?`, for an error message.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
