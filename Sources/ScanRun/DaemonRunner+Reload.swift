import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanOutput

extension DaemonRunner {
    /// SIGHUP: re-reads the config file and applies what can change while running, camera by camera (a
    /// camera keeps its tracks, faceIDs and presence); what cannot change without a restart is named.
    static func reload(
        cameras: CameraSet, server: SocketServer?, sessions: [String: CaptureSession], current: inout DaemonPlan,
        options: DaemonRunOptions, logger: Logger
    ) {
        guard let config = options.configPath else {
            logger.notice("SIGHUP: no --config file to reload")
            return
        }
        do {
            let next = try options.replan()
            let nextCameras = Dictionary(next.cameraPlans.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            try cameras.reload(nextCameras.mapValues(\.daemon))
            let before = current.allEffectiveSettings
            let changed = next.allEffectiveSettings.filter { before[$0.key] != $0.value }
            if next.allMetadataObjectTypes != current.allMetadataObjectTypes {
                server?.updateBanner(
                    ServerBanner(version: options.version, types: next.allMetadataObjectTypes.sorted()))
            }
            var needsRestart = processSettingsNeedingRestart(next: next, current: current, changed: changed)
            var updated: [CameraPlan] = []
            for var camera in current.cameraPlans {
                guard let wanted = nextCameras[camera.name] else {
                    updated.append(camera)
                    continue
                }
                let prefix = current.cameras.isEmpty ? "" : "cameras.\(camera.name): "
                if wanted.input != camera.input || wanted.device != camera.device {
                    needsRestart.append(prefix + "input/device")
                }
                if wanted.daemon.pacing != camera.daemon.pacing || wanted.daemon.loop != camera.daemon.loop {
                    needsRestart.append(prefix + "pacing/loop")
                }
                if let session = sessions[camera.name] {
                    applyCapture(wanted.capture, to: session, camera: &camera, options: options, logger: logger)
                }
                camera.daemon = wanted.daemon
                updated.append(camera)
            }
            if Set(next.cameraPlans.map(\.name)) != Set(current.cameraPlans.map(\.name)) {
                needsRestart.append("cameras (added or removed)")
            }
            if !needsRestart.isEmpty {
                logger.warning(
                    "SIGHUP: these settings take effect only after a restart: \(needsRestart.joined(separator: ", "))")
            }
            if current.cameras.isEmpty, let only = updated.first {
                current.daemon = only.daemon
                current.capture = only.capture
            } else {
                current.cameras = updated
            }
            current.exitAtEnd = next.exitAtEnd
            logger.notice(
                "SIGHUP: configuration reloaded",
                metadata: ["config": "\(config)", "changed": "\(changed.keys.sorted().joined(separator: ","))"])
            // Every client learns that the settings changed, and which (the `configuration` event).
            cameras.bus.emit([
                .configuration(ConfigurationEvent(reloaded: config, changed: changed, needsRestart: needsRestart))
            ])
        } catch {
            logger.error("SIGHUP: configuration not reloaded, keeping the running one: \(error)")
        }
    }

    /// The process-wide settings that changed and take effect only after a restart.
    private static func processSettingsNeedingRestart(
        next: DaemonPlan, current: DaemonPlan, changed: [String: SettingValue]
    ) -> [String] {
        var needsRestart: [String] = []
        if next.socketPath != current.socketPath || next.socketGroup != current.socketGroup {
            needsRestart.append("socket")
        }
        if next.stdout != current.stdout { needsRestart.append("stdout") }
        if next.server != current.server { needsRestart.append("socket client limits") }
        if next.logLevel != current.logLevel { needsRestart.append(Setting.logLevel.key) }
        if changed.keys.contains(where: { $0.hasPrefix("mqtt.") || $0.hasPrefix("http") }) {
            needsRestart.append("mqtt/http")
        }
        return needsRestart
    }

    /// A camera's new preset, size, rate and stall timeout, applied to its running session with one restart of
    /// streaming (commitConfiguration); a device that does not offer them keeps the old ones.
    private static func applyCapture(
        _ wanted: CaptureConfiguration?, to session: CaptureSession, camera: inout CameraPlan,
        options: DaemonRunOptions, logger: Logger
    ) {
        guard let wanted, wanted != camera.capture, wanted.device == camera.capture?.device else { return }
        var staged = wanted
        staged.waitForDevice = !options.failFast
        session.beginConfiguration()
        session.configuration = staged
        do {
            try session.commitConfiguration()
            camera.capture = wanted
            logger.notice(
                "SIGHUP: camera settings applied", metadata: ["device": "\(wanted.device)", "camera": "\(camera.name)"])
        } catch {
            logger.error("SIGHUP: camera settings not applied, keeping the running ones: \(error)")
        }
    }
}
