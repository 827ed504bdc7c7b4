import Foundation
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit

extension DaemonRunner {
    /// A network camera's source (issue 49): its stream URL, with the credentials the environment gives for
    /// this camera (never argv). A stream that sends nothing for the camera's stall timeout is stalled and
    /// is connected again; `run` never ends for it (a live camera), only on SIGTERM.
    /// - Throws: ``ScanError/invalidArgument(_:)`` for credentials written in the URL or unreadable.
    static func networkSource(_ plan: CameraPlan, url: String, limits: DecoderLimits) throws -> DaemonSource {
        if let problem = NetworkCameraConfiguration.problem(withURL: url) {
            throw ScanError.invalidArgument(problem)
        }
        let name = plan.name == CameraPlan.defaultName ? nil : plan.name
        var configuration = NetworkCameraConfiguration(
            url: url,
            credentials: try NetworkCameraConfiguration.credentials(
                camera: name, environment: ProcessInfo.processInfo.environment),
            limits: limits)
        configuration.readTimeout = plan.pipeStallTimeout
        let camera = NetworkCamera(configuration)
        return DaemonSource(name: url, canReopen: false, deviceEvents: camera) { camera }
    }
}
