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
        var settings: [String: SettingValue] = [
            "types": .strings(o.metadataObjectTypes.map(\.rawValue).sorted()),
            "engine": .string(b.engine.rawValue), "passes": .strings(b.passes.map(\.rawValue)),
            "scanDensity": .int(b.scanDensity), "tryInverted": .bool(b.tryInverted),
            "extraPasses": .bool(b.extraPasses),
            "codabarMinLength": .int(b.minimumCodabarLength), "i25MinLength": .int(b.minimumI25Length),
            "i25Checksum": .bool(b.requireI25Checksum), "minLinearQuality": .int(b.minimumLinearQuality),
            "confirm1D": .bool(b.confirmLinearCodes), "code39FullASCII": .bool(b.code39FullASCII),
            "code32": .bool(b.code32), "confirmTransformed": .bool(b.confirmTransformedLinearReads),
            "checkSmallRetail": .bool(b.checkSmallRetailReads), "extendLinearBounds": .bool(b.extendLinearBounds),
            "resolveConflicts": .bool(b.resolveConflictingReads), "upceQuietZone": .bool(b.checkUPCEQuietZone),
            "parallelDetectors": .bool(o.parallelDetectors), "loadShedding": .bool(o.shedLoadWhenLate),
            "faceDetector": .string(f.detector.rawValue), "faceCascade": .string(f.cascade.rawValue),
            "minFaceSize": .int(f.minimumFaceSize),
            "faceInterval": .int(f.detectionInterval), "faceScaleFactor": .double(f.scaleFactor),
            "faceMinNeighbors": .int(f.minNeighbors), "faceGrace": .double(f.presenceGrace),
            "metadata": .bool(r.daemon.emitMetadata), "pacing": .bool(r.daemon.pacing), "loop": .bool(r.daemon.loop),
            "exitAtEnd": .bool(r.exitAtEnd), "stdout": .bool(r.stdout), "stdoutQueue": .int(r.stdoutQueue),
            "maxPixels": .int(r.limits.maxPixels), "logLevel": .string(r.logLevel.rawValue),
            "presence.enabled": .bool(r.daemon.presence.enabled),
            "presence.lostAfter": .double(r.daemon.presence.lostAfter),
            "presence.cooldown": .double(r.daemon.presence.cooldown),
            "presence.appearAfterFrames": .int(r.daemon.presence.appearAfterFrames),
        ]
        if let v = b.streamStepsPerFrame {
            settings["streamSteps"] = .int(v)
        } else {
            settings["allPassesOnStreams"] = .bool(true)
        }
        if let v = b.streamScanDensity { settings["streamScanDensity"] = .int(v) }
        settings["streamQRLines"] = .int(b.streamQRLookLines ?? 0)
        if let v = r.input { settings["input"] = .string(v) }
        if let c = r.capture {
            settings["device"] = .string(c.device)
            settings["preset"] = .string(c.sessionPreset.rawValue)
            if let s = c.frameSize { settings["size"] = .string("\(s.width)x\(s.height)") }
            if let v = c.frameRate { settings["fps"] = .double(v) }
            settings["stallTimeout"] = .double(c.stallTimeout)
        }
        if let p = o.preview {
            settings["viewSize"] = .string("\(plainNumber(p.viewSize.width))x\(plainNumber(p.viewSize.height))")
            settings["videoGravity"] = .string(p.videoGravity.rawValue)
            settings["orientation"] = .string(p.orientation.rawValue)
            settings["mirrored"] = .bool(p.isMirrored)
        }
        if let v = r.socketPath { settings["socket.path"] = .string(v) }
        if let v = r.httpAddress { settings["http"] = .string(v) }
        if let v = r.httpTokenPath { settings["httpToken"] = .string(v) }
        if r.httpAddress != nil { settings["httpMaxFps"] = .double(r.httpMaxFps) }
        if let m = r.mqtt {
            settings["mqtt.url"] = .string(m.endpoint.description)
            settings["mqtt.metadata"] = .bool(m.metadata)
            settings["mqtt.discovery"] = .bool(m.discovery)
        }
        if !r.deviceControls.settings.isEmpty {
            settings["controls"] = .strings(r.deviceControls.settings.map { "\($0.name)=\($0.value)" })
        }
        return settings
    }

    /// ``effectiveSettings`` as one JSON line, `{"effective":{…}}`, keys sorted.
    public func effectiveSettingsJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(["effective": effectiveSettings]), as: UTF8.self)
    }
}

/// A number as a user would write it: no trailing `.0`.
func plainNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
