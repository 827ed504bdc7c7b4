import Foundation
import ScanCapture

extension DaemonPlan {
    /// What `--check-config` finds about the files and devices the plan names: an input, token, TLS or
    /// password file that does not exist (or cannot be read) is an error, because the run would fail; a camera
    /// that is not there yet, or a socket directory that does not exist yet, is a warning, because it may
    /// appear before or while scand runs (hot-plug, systemd's RuntimeDirectory).
    public func checkNamedPaths() -> (errors: [String], warnings: [String]) {
        var errors: [String] = []
        var warnings: [String] = []
        let fm = FileManager.default
        for camera in cameraPlans {
            let whose = cameras.isEmpty ? "" : "camera '\(camera.name)': "
            if let input = camera.input, input != "-" {
                var isDirectory: ObjCBool = false
                if !fm.fileExists(atPath: input, isDirectory: &isDirectory) {
                    errors.append("\(whose)input '\(input)' does not exist")
                } else if isDirectory.boolValue || !fm.isReadableFile(atPath: input) {
                    errors.append("\(whose)input '\(input)' is not a readable file")
                }
            }
            if let device = camera.device, !fm.fileExists(atPath: device) {
                warnings.append(
                    "\(whose)device '\(device)' does not exist now; scand run waits for it to appear (--fail-fast: exit at once)"
                )
            }
        }
        if let httpTokenPath, !fm.isReadableFile(atPath: httpTokenPath) {
            errors.append("httpToken '\(httpTokenPath)' does not exist or cannot be read")
        }
        if let socketPath {
            let directory = (socketPath as NSString).deletingLastPathComponent
            if !directory.isEmpty && !fm.fileExists(atPath: directory) {
                warnings.append("the socket's directory '\(directory)' does not exist now")
            }
        }
        return (errors, warnings)
    }
}
