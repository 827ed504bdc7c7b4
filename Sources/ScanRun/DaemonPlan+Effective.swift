import FoundationEssentials
import ScanCapture
public import ScanCore
import ScanKit
import ScanMQTT

extension DaemonPlan {
    /// The resolved settings keyed like the config file (`--check-config` prints them; a reload's
    /// `configuration` event names the ones that changed).
    public var effectiveSettings: [String: SettingValue] {
        let r = self
        let o = r.daemon.output
        let b = o.barcode
        let f = o.face
        // `inverted` is published under its older name, `tryInverted`, as reload events always have.
        var settings: [String: SettingValue] = [
            Setting.types.key: .strings(o.metadataObjectTypes.map(\.rawValue).sorted()),
            Setting.engine.key: .string(b.engine.rawValue), Setting.passes.key: .strings(b.passes.map(\.rawValue)),
            Setting.scanDensity.key: .int(b.scanDensity), Setting.inverted.aliases[0]: .bool(b.tryInverted),
            Setting.extraPasses.key: .bool(b.extraPasses),
            Setting.codabarMinLength.key: .int(b.minimumCodabarLength),
            Setting.i25MinLength.key: .int(b.minimumI25Length),
            Setting.i25Checksum.key: .bool(b.requireI25Checksum),
            Setting.minLinearQuality.key: .int(b.minimumLinearQuality),
            Setting.confirm1D.key: .bool(b.confirmLinearCodes),
            Setting.code39FullASCII.key: b.code39FullASCII.map(SettingValue.bool) ?? .string("evident"),
            Setting.code32.key: .bool(b.code32), Setting.confirmTransformed.key: .bool(b.confirmTransformedLinearReads),
            Setting.checkSmallRetail.key: .bool(b.checkSmallRetailReads),
            Setting.extendLinearBounds.key: .bool(b.extendLinearBounds),
            Setting.resolveConflicts.key: .bool(b.resolveConflictingReads),
            Setting.upceQuietZone.key: .bool(b.checkUPCEQuietZone),
            Setting.parallelDetectors.key: .bool(o.parallelDetectors),
            Setting.loadShedding.key: .bool(o.shedLoadWhenLate),
            Setting.faceDetector.key: .string(f.detector.rawValue),
            Setting.faceCascade.key: .string(f.cascade.rawValue),
            Setting.minFaceSize.key: .int(f.minimumFaceSize),
            Setting.faceInterval.key: .int(f.detectionInterval), Setting.faceScaleFactor.key: .double(f.scaleFactor),
            Setting.faceMinNeighbors.key: .int(f.minNeighbors), Setting.faceGrace.key: .double(f.presenceGrace),
            Setting.metadata.key: .bool(r.daemon.emitMetadata), Setting.pacing.key: .bool(r.daemon.pacing),
            Setting.loop.key: .bool(r.daemon.loop),
            Setting.exitAtEnd.key: .bool(r.exitAtEnd), Setting.stdout.key: .bool(r.stdout),
            Setting.stdoutQueue.key: .int(r.stdoutQueue),
            Setting.maxPixels.key: .int(r.limits.maxPixels), Setting.logLevel.key: .string(r.logLevel.rawValue),
            Setting.presence.key: .bool(r.daemon.presence.enabled),
            Setting.lostAfter.key: .double(r.daemon.presence.lostAfter),
            Setting.cooldown.key: .double(r.daemon.presence.cooldown),
            Setting.appearAfter.key: .int(r.daemon.presence.appearAfterFrames),
            Setting.presenceBy.key: .string(r.daemon.presence.by.rawValue),
            Setting.duplicateFilter.key: r.daemon.presence.duplicateFilter.settingValue,
        ]
        if let v = b.streamStepsPerFrame {
            settings[Setting.streamSteps.key] = .int(v)
        } else {
            settings[Setting.allPassesOnStreams.key] = .bool(true)
        }
        if let v = b.streamScanDensity { settings[Setting.streamScanDensity.key] = .int(v) }
        settings[Setting.streamQRLines.key] = .int(b.streamQRLookLines ?? 0)
        if let v = r.input { settings[Setting.input.key] = .string(v) }
        if let v = r.cameraCa { settings[Setting.cameraCa.key] = .string(v) }
        if let c = r.capture {
            settings[Setting.device.key] = .string(c.device)
            settings[Setting.preset.key] = .string(c.sessionPreset.rawValue)
            if let s = c.frameSize { settings[Setting.size.key] = .string("\(s.width)x\(s.height)") }
            if let v = c.frameRate { settings[Setting.fps.key] = .double(v) }
            settings[Setting.stallTimeout.key] = .double(c.stallTimeout)
        }
        if let p = o.preview {
            settings[Setting.viewSize.key] = .string(
                "\(plainNumber(p.viewSize.width))x\(plainNumber(p.viewSize.height))")
            settings[Setting.videoGravity.key] = .string(p.videoGravity.rawValue)
            settings[Setting.orientation.key] = .string(p.orientation.rawValue)
            settings[Setting.mirrored.key] = .bool(p.isMirrored)
        }
        if let v = r.socketPath { settings[Setting.socket.key] = .string(v) }
        if let v = r.httpAddress { settings[Setting.http.key] = .string(v) }
        if let v = r.httpTokenPath { settings[Setting.httpToken.key] = .string(v) }
        if r.httpAddress != nil { settings[Setting.httpMaxFps.key] = .double(r.httpMaxFps) }
        if let m = r.mqtt {
            settings[Setting.mqtt.key] = .string(m.endpoint.description)
            settings[Setting.mqttMetadata.key] = .bool(m.metadata)
            settings[Setting.mqttDiscovery.key] = .bool(m.discovery)
        }
        if !r.deviceControls.settings.isEmpty {
            settings[Setting.control.key] = .strings(r.deviceControls.settings.map { "\($0.name)=\($0.value)" })
        }
        return settings
    }

    /// Each camera's settings of a multi-camera run (none for a one-camera run), keyed like the config file:
    /// the camera's source and pipeline settings, not the process's (outputs, logging, the run's end).
    public var cameraSettings: [String: [String: SettingValue]] {
        var all: [String: [String: SettingValue]] = [:]
        for camera in cameras {
            all[camera.name] = only(camera).effectiveSettings.filter { !Self.isProcessWide($0.key) }
        }
        return all
    }

    /// ``effectiveSettings`` and every camera's (`cameras.NAME.KEY`): what a reload compares.
    public var allEffectiveSettings: [String: SettingValue] {
        var all = effectiveSettings
        for (name, settings) in cameraSettings {
            for (key, value) in settings { all["\(Setting.cameras.key).\(name).\(key)"] = value }
        }
        return all
    }

    private static func isProcessWide(_ key: String) -> Bool {
        ["socket.", "mqtt.", "http"].contains { key.hasPrefix($0) }
            || [
                Setting.stdout, .stdoutQueue, .logLevel, .exitAtEnd, .maxPixels, .socket, .mqtt,
            ].contains { $0.key == key }
    }

    /// ``effectiveSettings`` as one JSON line, `{"effective":{…}}`, keys sorted; with several cameras, each
    /// camera's settings too, `{"effective":{…},"cameras":{"door":{…},…}}`.
    public func effectiveSettingsJSON() throws -> String {
        struct Line: Encodable {
            var effective: [String: SettingValue]
            var cameras: [String: [String: SettingValue]]?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let cameras = cameraSettings
        return String(
            decoding: try encoder.encode(
                Line(effective: effectiveSettings, cameras: cameras.isEmpty ? nil : cameras)), as: UTF8.self)
    }
}

extension DuplicateFilter {
    /// As `--check-config` and reload events show it: `"off"`, `"once"`, or the seconds.
    var settingValue: SettingValue {
        if case .within(let seconds) = self { return .double(seconds) }
        return .string(description)
    }
}
