import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanOutput

extension DaemonRunner {
    /// SIGHUP: re-reads the config file and applies what can change while running, camera by camera (a
    /// camera keeps its tracks, faceIDs and presence); what cannot change without a restart is named.
    static func reload(
        cameras: CameraSet, server: SocketServer?, sessions: inout [String: CaptureSession], current: inout DaemonPlan,
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
            let updated = reloadCameras(
                next: next, current: current, cameras: cameras, sessions: &sessions, needsRestart: &needsRestart,
                options: options, logger: logger)
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

    /// Each camera's part of a reload: with `cameras` before and after, cameras come and go with the file (a
    /// camera given another source, or pacing or loop, starts again alone); a one-camera run keeps its one
    /// camera until restarted. Every camera kept takes its new capture and pipeline settings.
    /// - Returns: the cameras now running, with their plans.
    private static func reloadCameras(
        next: DaemonPlan, current: DaemonPlan, cameras: CameraSet, sessions: inout [String: CaptureSession],
        needsRestart: inout [String], options: DaemonRunOptions, logger: Logger
    ) -> [CameraPlan] {
        let nextCameras = Dictionary(next.cameraPlans.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let multi = !current.cameras.isEmpty && !next.cameras.isEmpty
        var updated: [CameraPlan] = []
        for var camera in current.cameraPlans {
            guard let wanted = nextCameras[camera.name] else {
                if multi {
                    cameras.remove(camera.name)
                    sessions[camera.name] = nil
                } else {
                    updated.append(camera)
                }
                continue
            }
            let restart =
                wanted.input != camera.input || wanted.device != camera.device
                || wanted.daemon.pacing != camera.daemon.pacing || wanted.daemon.loop != camera.daemon.loop
            if restart && multi {
                let started = startCamera(
                    wanted, in: cameras, run: next, sessions: &sessions, options: options, logger: logger)
                updated.append(started ? wanted : camera)
                continue
            }
            if restart { needsRestart.append("input/device, pacing/loop") }
            if let session = sessions[camera.name] {
                applyCapture(wanted.capture, to: session, camera: &camera, options: options, logger: logger)
            }
            camera.daemon = wanted.daemon
            updated.append(camera)
        }
        if multi {
            for wanted in next.cameraPlans where !current.cameraPlans.contains(where: { $0.name == wanted.name }) {
                if startCamera(wanted, in: cameras, run: next, sessions: &sessions, options: options, logger: logger) {
                    updated.append(wanted)
                }
            }
        } else if Set(next.cameraPlans.map(\.name)) != Set(current.cameraPlans.map(\.name)) {
            needsRestart.append("cameras (a run started with --input/--device, or with cameras, keeps that form)")
        }
        return updated
    }

    /// Starts camera `plan` beside the running ones (a reload added it, or gave it another source); false when
    /// it cannot start (logged; a camera of that name was stopped all the same).
    private static func startCamera(
        _ plan: CameraPlan, in cameras: CameraSet, run: DaemonPlan, sessions: inout [String: CaptureSession],
        options: DaemonRunOptions, logger: Logger
    ) -> Bool {
        var cameraLogger = logger
        cameraLogger[metadataKey: "camera"] = "\(plan.name)"
        let session = makeCamera(plan, failFast: options.failFast, logger: cameraLogger)
        do {
            let source = try openSource(plan, plan: run, session: session, logger: logger)
            try cameras.add(CameraSet.Member(name: plan.name, configuration: plan.daemon, source: source))
            sessions[plan.name] = session
            return true
        } catch {
            sessions[plan.name] = nil
            logger.error("SIGHUP: camera '\(plan.name)' not started: \(error)")
            return false
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
        // Set in the environment once, before any thread (NetworkCameraConfiguration.prepareTLS).
        if next.cameraCa != current.cameraCa { needsRestart.append(Setting.cameraCa.key) }
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
