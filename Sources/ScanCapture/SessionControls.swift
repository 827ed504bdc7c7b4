import ScanCore

/// What a session sets on its device's controls, and the exposure loop. Part of ``CaptureConfiguration``; a
/// commit that changes only this is applied to the running stream without restarting it.
public struct ControlConfiguration: Sendable, Hashable {
    /// `--control NAME=VALUE`, applied after the modes, in order.
    public var settings: [ControlSetting]
    /// `--focus-mode`, `--exposure-mode`, `--white-balance-mode`, `--torch-mode`.
    public var modes: DeviceModes
    /// Software exposure metering on a region (nil: off).
    public var exposureMetering: ExposureMetering?
    public init(
        settings: [ControlSetting] = [], modes: DeviceModes = DeviceModes(), exposureMetering: ExposureMetering? = nil
    ) {
        self.settings = settings
        self.modes = modes
        self.exposureMetering = exposureMetering
    }
    public var isEmpty: Bool { settings.isEmpty && modes.isEmpty && exposureMetering == nil }

    /// Checks everything against `controls` (the device's list): the writes, and the metering control.
    /// - Throws: ``ControlError``.
    func check(against controls: [CaptureDeviceControl]) throws(ControlError) {
        _ = try writes(for: controls)
    }

    /// The writes for `controls`, and the control the exposure loop steps (if on). Metering on
    /// `exposure_time_absolute` without an `--exposure-mode` implies `custom` (manual exposure).
    func writes(for controls: [CaptureDeviceControl]) throws(ControlError) -> (
        writes: [ControlWrite], metered: (CaptureDeviceControl, ExposureController.Response)?
    ) {
        var modes = self.modes
        var metered: (CaptureDeviceControl, ExposureController.Response)?
        if let m = exposureMetering {
            let a = try m.actuator(in: controls)
            metered = a
            if a.0.id == StandardControl.exposureTimeAbsolute, modes.exposureMode == nil,
                ModeMapping.isSupported(ExposureMode.custom, controls: controls),
                controls.contains(where: { $0.id == StandardControl.autoExposure })
            {
                modes.exposureMode = .custom
            }
        }
        return (try ModeMapping.plan(modes: modes, settings: settings, controls: controls), metered)
    }
}

/// The capture thread's side of ``ControlConfiguration``: applies it to each newly opened stream (so after an
/// unplug and re-plug too), turns `V4L2_EVENT_CTRL` into events, and runs the exposure loop on frames.
/// Used from the capture thread only.
final class SessionControls {
    typealias Emit = (_ kind: DeviceEvent.Kind, _ reason: String?, _ control: String?, _ value: Int64?) -> Void
    private(set) var configuration: ControlConfiguration
    private var names: [UInt32: String] = [:]
    private var controller: ExposureController?
    private var meteredID: UInt32 = 0
    private var meteredWide = false
    /// The locked modes' values (control id → value) as first applied: written again on every later open (a
    /// re-plugged camera comes back with its defaults), until a commit changes the modes.
    private var held: [UInt32: Int64] = [:]
    private let emit: Emit

    init(_ configuration: ControlConfiguration, emit: @escaping Emit) {
        self.configuration = configuration
        self.emit = emit
    }

    /// A stream just started: subscribe to control events, apply the configuration, set up the exposure loop.
    func opened(_ stream: V4L2Stream) {
        let controls = stream.controls()
        names = Dictionary(controls.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        // Read-only and volatile controls change by themselves (status counters, gain under autogain: vivid's
        // read_only_integer_32_bits changes every frame); only settable controls become events.
        stream.subscribeControlEvents(
            ids: controls.filter {
                $0.kind != .button && $0.kind != .compound && !$0.isReadOnly && !$0.isVolatile
            }.map(\.id))
        apply(configuration, to: stream, controls: controls)
    }

    /// A commit changed only the controls: apply them to the running stream.
    func reconfigure(_ next: ControlConfiguration, stream: V4L2Stream?) {
        if next.modes != configuration.modes { held = [:] }  // a new lock takes the values of its moment
        configuration = next
        controller = nil
        if let stream { apply(next, to: stream, controls: stream.controls()) }
    }

    private func apply(_ c: ControlConfiguration, to stream: V4L2Stream, controls: [CaptureDeviceControl]) {
        controller = nil
        do {
            let (planned, metered) = try c.writes(for: controls)
            let writes = planned.map { w -> ControlWrite in
                guard w.holdsCurrentValue else { return w }
                guard let value = held[w.id] else {
                    held[w.id] = w.value
                    return w
                }
                var kept = w
                kept.value = value
                return kept
            }
            try stream.apply(writes)
            if let m = c.exposureMetering, let (control, response) = metered {
                // The value after the writes above (a --control may have set the start value).
                let value = writes.last { $0.id == control.id }?.value ?? control.value ?? control.defaultValue
                controller = ExposureController(
                    metering: m, minimum: control.minimum, maximum: control.maximum,
                    step: control.step, value: value, response: response)
                meteredID = control.id
                meteredWide = control.kind == .int64
            }
        } catch {
            emit(.runtimeError, "controls not applied: \(error)", nil, nil)
        }
    }

    /// Turns the stream's dequeued control events into `controlChanged` events; a change of the metered control
    /// by someone else resets the loop's idea of the value.
    func drainEvents(_ stream: V4L2Stream) {
        for e in stream.takeControlEvents() {
            let name = names[e.id] ?? "0x" + String(e.id, radix: 16)
            if e.id == meteredID, var c = controller, c.value != e.value {
                c.reset(value: e.value)
                controller = c
            }
            emit(.controlChanged, nil, name, e.value)
        }
    }

    /// One frame: meter the region and step the control when needed.
    func frame(_ plane: LumaPlane, stream: V4L2Stream) {
        guard var c = controller else { return }
        let mean = meanLuma(of: plane, in: c.metering.region)
        let step = c.update(mean: mean)
        controller = c
        let name = names[meteredID] ?? "control"
        if step.began {
            emit(
                .adjustingExposureStarted, "region mean luma \(fmt(mean)), target \(fmt(c.metering.target))", name,
                c.value)
        }
        if let v = step.write {
            do { try stream.apply([ControlWrite(id: meteredID, name: name, value: v, wide: meteredWide)]) } catch {
                emit(.runtimeError, "exposure metering: \(error)", name, v)
                controller = nil
            }
        }
        if step.ended {
            emit(
                .adjustingExposureEnded, "region mean luma \(fmt(mean)), target \(fmt(c.metering.target))", name,
                c.value)
        }
    }

    private func fmt(_ v: Double) -> String { String(Double(Int((v * 1000).rounded())) / 1000) }
}
